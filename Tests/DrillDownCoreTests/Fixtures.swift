@testable import DrillDownCore

/// A document literal for building trees in tests.
typealias Doc = TreeLiteral

/// A row dictionary of the outline convention.
func row(_ title: String, _ children: [Doc] = [], _ extra: [(String, Doc)] = []) -> Doc { .row(title, children, extra) }

/// Seed 000's Data.plist.
let seed000: Doc = .object([
    ("Rows", .array([
        row("Item 1", [row("Screen A")]),
        row("Item 2", [row("Screen B", [row("Screen C")])]),
        row("Item 3", [row("Screen D", [row("Screen E", [row("Screen F")])])]),
        row("Item 4", [row("Screen G", [row("Screen H", [row("Screen I", [row("Screen J")])])])]),
    ]))
])

func seedSource() -> DocumentSource { DocumentSource(tree: seed000.tree) }

/// A small deterministic random generator for property tests.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A random generic tree of about `budget` nodes.
func randomDoc(_ rng: inout SplitMix, budget: inout Int, depth: Int = 0) -> Doc {
    budget -= 1
    if budget <= 0 || depth > 6 || Int.random(in: 0 ..< 10, using: &rng) < 3 {
        return .string("leaf \(Int.random(in: 0 ..< 1000, using: &rng))")
    }
    let n = Int.random(in: 0 ... 6, using: &rng)
    var items: [Doc] = []
    for _ in 0 ..< n where budget > 0 { items.append(randomDoc(&rng, budget: &budget, depth: depth + 1)) }
    if Bool.random(using: &rng) { return .array(items) }
    return .object(items.enumerated().map { ("k\($0.offset)", $0.element) })
}

/// One random outline operation on `id` (expand and collapse most often), for property tests.
func randomOperation(on outline: inout Outline, _ id: NodeID, _ rng: inout SplitMix) {
    switch Int.random(in: 0 ..< 20, using: &rng) {
    case 0: outline.expandAll()
    case 1: outline.collapseAll()
    case 2: outline.reveal(id)
    case 3 ..< 11: outline.expand(id)
    case 11 ..< 17: outline.collapse(id)
    default: outline.toggle(id)
    }
}
