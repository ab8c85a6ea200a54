import DrillDownCore
@testable import DrillDownTerminal

/// A document literal for building trees in tests.
typealias Doc = TreeLiteral

/// A row dictionary of the outline convention.
func row(_ title: String, _ children: [Doc] = [], _ extra: [(String, Doc)] = []) -> Doc { .row(title, children, extra) }

/// `Examples/Data.plist`.
let seed000: Doc = .object([
    (
        "Rows",
        .array([
            row("Item 1", [row("Screen A")]),
            row("Item 2", [row("Screen B", [row("Screen C")])]),
            row("Item 3", [row("Screen D", [row("Screen E", [row("Screen F")])])]),
            row("Item 4", [row("Screen G", [row("Screen H", [row("Screen I", [row("Screen J")])])])]),
        ])
    )
])

func presenter(_ doc: Doc, schema: Doc? = nil) throws -> Presenter {
    let source = DocumentSource(tree: doc.tree)
    let parsed = try schema.map { try Schema(tree: $0.tree) } ?? Schema()
    return Presenter(source: source, schema: parsed)
}

func browser(_ doc: Doc = seed000, width: Int = 60, height: Int = 16) throws -> Browser {
    Browser(presenter: try presenter(doc), width: width, height: height)
}

extension Browser {
    mutating func press(_ keys: Key...) {
        for k in keys { step(k) }
    }

    mutating func type(_ text: String) {
        for c in text { step(.character(c)) }
    }

    /// Handles a key and runs the searches it asks for at once, as the event loop does in the background.
    mutating func step(_ key: Key) {
        handle(key)
        for case .search(let text) in effects {
            let result = presenter.source.find(SearchQuery(text, limit: Browser.searchLimit))
            receiveSearch(text, hits: result.hits, total: result.total)
        }
        effects.removeAll { if case .search = $0 { true } else { false } }
    }

    /// The rendered screen's lines with trailing spaces removed.
    var screen: [String] { render().text.components(separatedBy: "\n") }
}

/// A generic document with one level of `n` rows (`row 0` … ), each a small object.
func wideLevel(_ n: Int) -> Doc {
    .object([("rows", .array((0 ..< n).map { .object([("name", .string("row \($0)")), ("size", .int($0))]) }))])
}
