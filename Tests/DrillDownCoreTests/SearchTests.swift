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

    @Test("an offset pages on through the hits; the total still counts them all")
    func offset() {
        let source = seedSource()
        let all = source.find(SearchQuery("screen")).hits
        let pages = stride(from: 0, to: 12, by: 3).map { source.find(SearchQuery("screen", limit: 3, offset: $0)) }
        #expect(pages.flatMap(\.hits) == all)
        #expect(pages.allSatisfy { $0.total == 10 })
        #expect(pages.last!.hits.count == 1)
        #expect(source.find(SearchQuery("screen", limit: 3, offset: 50)).hits.isEmpty)
        // The first hits of a page are handed over early, as for the first page.
        var early: [[NodeID]] = []
        let page = try? source.find(SearchQuery("screen", limit: 3, offset: 3), until: { false }, firstHits: { early.append($0) })
        #expect(early == [page!.hits])
    }

    @Test("a scope searches only under its node, which is not a hit itself")
    func scope() {
        let source = seedSource()
        let item4 = source.node(at: [3])!
        let scoped = source.find(SearchQuery("screen", in: item4))
        #expect(scoped.hits.allSatisfy { source.path(of: $0).indices.first == 3 })
        #expect(scoped.total == source.find(SearchQuery("screen")).hits.filter { source.path(of: $0).indices.first == 3 }.count)
        #expect(source.find(SearchQuery("item 4", in: item4)).total == 0)
        #expect(source.find(SearchQuery("screen", limit: 1, offset: 1, in: item4)).hits == Array(scoped.hits.dropFirst().prefix(1)))
    }

    @Test("an empty query finds nothing")
    func empty() {
        #expect(seedSource().find(SearchQuery("")).total == 0)
    }
}
