import Testing
@testable import DrillDownCore

@Suite("Row shape: counted on the store as a walk of children(of:) counts")
struct RowShapeTests {
    /// Rows, widest level and deepest row by asking every row for its children.
    func walked(_ s: some Source) -> (rows: Int, widest: Int, depth: Int) {
        var rows = 0, widest = 0, deepest = 0
        var stack = [(s.root, 0)]
        while let (n, depth) = stack.popLast() {
            let kids = s.children(of: n)
            guard !kids.isEmpty else { continue }
            rows += kids.count
            widest = max(widest, kids.count)
            deepest = max(deepest, depth + 1)
            stack.append(contentsOf: kids.map { ($0, depth + 1) })
        }
        return (rows, widest, deepest)
    }

    func expectSame(_ s: DocumentSource, _ context: String) {
        let fast = s.rowShape(), slow = walked(s)
        #expect(fast == slow, "\(context): rowShape \(fast), walk \(slow)")
    }

    /// A key among spellings that differ only in ASCII case.
    func spelling(_ word: String, _ rng: inout SplitMix) -> String {
        [word, word.uppercased(), word.prefix(1).uppercased() + word.dropFirst()].randomElement(using: &rng)!
    }

    /// A row of an untidy outline: title and children under any case and either key (both
    /// sometimes, in either order), children that are empty or not an array, attributes holding
    /// objects with a children key of their own (not rows), and elements that are not objects.
    func messyRow(_ rng: inout SplitMix, budget: inout Int, depth: Int) -> Doc {
        budget -= 1
        switch Int.random(in: 0 ..< 12, using: &rng) {
        case 0: return .string("not a row")
        case 1: return .array([row("inside an array")])
        default: break
        }
        var members: [(String, Doc)] = []
        if Int.random(in: 0 ..< 5, using: &rng) > 0 { members.append((spelling(Bool.random(using: &rng) ? "title" : "name", &rng), .string("r"))) }
        if Bool.random(using: &rng) { members.append(("meta", .object([("Children", .array([row("not a row")]))]))) }
        for key in ["children", "items"] where Int.random(in: 0 ..< 3, using: &rng) > 0 {
            let value: Doc
            switch Int.random(in: 0 ..< 8, using: &rng) {
            case 0: value = .array([])
            case 1: value = .string("not a list")
            case 2: value = .object([("Title", .string("not a list either"))])
            default:
                let n = depth > 5 || budget <= 0 ? 0 : Int.random(in: 0 ... 6, using: &rng)
                value = .array((0 ..< n).map { _ in messyRow(&rng, budget: &budget, depth: depth + 1) })
            }
            members.append((spelling(key, &rng), value))
        }
        if Bool.random(using: &rng) { members.reverse() }
        return .object(members)
    }

    /// An untidy outline: its first level under any case of `Rows`, or a top-level array.
    func messyOutline(_ rng: inout SplitMix, budget: inout Int) -> Doc {
        let n = Int.random(in: 0 ... 8, using: &rng)
        let top = Doc.array((0 ..< n).map { _ in messyRow(&rng, budget: &budget, depth: 1) })
        if Int.random(in: 0 ..< 4, using: &rng) == 0 { return top }
        return .object([("title", .string("root")), (spelling("rows", &rng), top)])
    }

    @Test("outline and generic readings of random documents (property)")
    func randomDocuments() {
        var rng = SplitMix(state: 13)
        let keys = [OutlineKeys.standard, OutlineKeys.standard.preferring(title: ["Label"], children: ["Items"])]
        for round in 0 ..< 300 {
            var budget = 5 + round
            let doc = round % 3 == 0 ? randomOutlineDoc(&rng, budget: &budget) : round % 3 == 1 ? messyOutline(&rng, budget: &budget)
                : randomDoc(&rng, budget: &budget)
            let tree = doc.tree
            expectSame(DocumentSource(tree: tree), "round \(round), inferred")
            expectSame(DocumentSource(tree: tree, mode: .generic), "round \(round), generic")
            for k in keys { expectSame(DocumentSource(tree: tree, mode: .outline(k)), "round \(round), outline \(k.children)") }
        }
    }

    @Test("empty documents and containers")
    func empty() {
        for doc: Doc in [.object([]), .array([]), .string("x"), .object([("Rows", .array([]))]), .object([("Rows", .string("x"))]),
            .array([.object([])]), .object([("Rows", .array([.object([("Children", .array([]))])]))])]
        {
            let tree = doc.tree
            expectSame(DocumentSource(tree: tree, mode: .generic), "\(doc) generic")
            expectSame(DocumentSource(tree: tree, mode: .outline(.standard)), "\(doc) outline")
        }
        #expect(DocumentSource(tree: Doc.object([]).tree, mode: .outline(.standard)).rowShape() == (0, 0, 0))
    }

    @Test("the seed outline's numbers")
    func seed() {
        #expect(seedSource().rowShape() == (14, 4, 5))
        #expect(DocumentSource(tree: seed000.tree, mode: .generic).rowShape() == (seed000.tree.count - 1, 4, 11))
    }

    @Test("edited documents (overlay) count as walked (property)")
    func edited() {
        var rng = SplitMix(state: 31)
        let helper = EditingPropertyTests()
        for round in 0 ..< 40 {
            var budget = 30 + round * 3
            let doc = round % 2 == 0 ? randomOutlineDoc(&rng, budget: &budget) : messyOutline(&rng, budget: &budget)
            var editable = EditableDocument(source: DocumentSource(tree: doc.tree))
            for _ in 0 ..< 20 { _ = try? editable.apply(helper.randomChange(editable.source, &rng)) }
            expectSame(editable.source, "round \(round), edited \(editable.mode)")
            expectSame(DocumentSource(tree: editable.tree, mode: .generic), "round \(round), edited generic")
        }
    }
}
