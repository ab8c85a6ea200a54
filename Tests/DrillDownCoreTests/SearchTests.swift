import Testing
@testable import DrillDownCore

@Suite("Search")
struct SearchTests {
    @Test("finds titles at any depth, case-insensitively, in document order")
    func titles() {
        let source = seedSource()
        let result = source.find(SearchQuery("screen "))
        #expect(result.total == 10)
        #expect(result.hits.map { source.title(of: $0) }.prefix(3) == ["Screen A", "Screen B", "Screen C"])
        #expect(source.path(of: result.hits.last!) == [3, 0, 0, 0, 0])
        #expect(source.find(SearchQuery("SCREEN J")).hits.map { source.path(of: $0) } == [[3, 0, 0, 0, 0]])
    }

    @Test("the limit caps hits but every match is counted")
    func limit() {
        let result = seedSource().find(SearchQuery("screen", limit: 2))
        #expect(result.hits.count == 2)
        #expect(result.total == 10)
    }

    @Test("values are searched only when asked, in both reading modes")
    func values() {
        let doc: Doc = .object([("a", .object([("city", .string("Lyon"))])), ("b", .string("nothing"))])
        let generic = DocumentSource(tree: doc.tree, mode: .generic)
        #expect(generic.find(SearchQuery("lyon")).total == 0)
        #expect(generic.find(SearchQuery("lyon", includeValues: true)).hits.map { generic.path(of: $0) } == [[0, 0]])
        let outline: Doc = .object([("Rows", .array([row("Paris", [], [("country", .string("France"))])]))])
        let source = DocumentSource(tree: outline.tree)
        #expect(source.find(SearchQuery("france")).total == 0)
        #expect(source.find(SearchQuery("france", includeValues: true)).total == 1)
    }

    @Test("an empty query finds nothing")
    func empty() {
        #expect(seedSource().find(SearchQuery("")).total == 0)
    }
}
