import Testing
@testable import DrillDownCore

/// The title index (a flat scan of folded titles) must find exactly what the tree walk finds.
@Suite("Search index")
struct SearchIndexTests {
    /// A random outline of about `rows` rows whose titles mix a few letters in both cases.
    static func outline(_ rng: inout SplitMix, rows: Int) -> DocumentSource {
        var budget = rows
        func level(_ depth: Int) -> [Doc] {
            var items: [Doc] = []
            let n = Int.random(in: 0 ... 8, using: &rng)
            for _ in 0 ..< n where budget > 0 {
                budget -= 1
                let title = String((0 ..< Int.random(in: 0 ... 7, using: &rng)).map { _ in "aAbBc é/".randomElement(using: &rng)! })
                if Int.random(in: 0 ..< 10, using: &rng) == 0 {
                    items.append(.string(title))  // a bare scalar row
                } else {
                    items.append(row(title, depth < 5 ? level(depth + 1) : [], [("note", .string("ab"))]))
                }
            }
            return items
        }
        var top: [Doc] = []
        while budget > 0 { top.append(contentsOf: level(0)) }
        return DocumentSource(tree: Doc.object([("Rows", .array(top))]).tree)
    }

    static let needles = ["a", "A", "ab", "ba", "aab", "bb", "c", "abab", "é", "é/", "/", " ", "x", "aaaaaaa", "b c"]

    @Test("titles in outline mode: the same hits, order and total as the walk, at every limit")
    func outlineMatchesWalk() throws {
        var rng = SplitMix(state: 7)
        for round in 0 ..< 20 {
            let source = Self.outline(&rng, rows: 50 + round * 40)
            #expect(source.tree.isDense)
            _ = source.search(SearchQuery("a"))  // the first search walks; the index is built by the next
            for text in Self.needles {
                for limit in [0, 1, 3, 100] {
                    let query = SearchQuery(text, limit: limit)
                    var early: [[NodeID]] = [], earlyWalked: [[NodeID]] = []
                    let indexed = try source.search(query, until: { false }, firstHits: { early.append($0) })
                    let walked = try source.walk(Array(text.lowercased().utf8), query, { false }, { earlyWalked.append($0) })
                    #expect(indexed == walked, "round \(round), '\(text)', limit \(limit)")
                    // The first hits are handed over once, as soon as there are `limit` of them.
                    let expected = limit > 0 && walked.total >= limit ? [walked.hits] : []
                    #expect(early == expected && earlyWalked == expected, "round \(round), '\(text)', limit \(limit)")
                    var paged = query
                    paged.offset = 2
                    #expect(source.search(paged) == (try source.walk(Array(text.lowercased().utf8), paged, { false })), "offset 2, '\(text)'")
                }
            }
        }
    }

    @Test("keys in generic mode: the same as the walk")
    func genericMatchesWalk() throws {
        var rng = SplitMix(state: 11)
        for round in 0 ..< 20 {
            var budget = 300 + round * 20
            let source = DocumentSource(tree: randomDoc(&rng, budget: &budget).tree, mode: .generic)
            _ = source.search(SearchQuery("k"))
            for text in ["k", "K1", "k2", "1", "leaf", "x"] {
                let query = SearchQuery(text, limit: 5)
                let walked = try source.walk(Array(text.lowercased().utf8), query, { false })
                #expect(source.search(query) == walked, "round \(round), '\(text)'")
            }
        }
    }

    @Test("a 0 byte in the query, values and edited trees take the walk and still find the right nodes")
    func fallbacks() throws {
        var doc = EditableDocument(source: seedSource())
        _ = doc.source.search(SearchQuery("screen"))
        #expect(doc.source.search(SearchQuery("screen")).total == 10)  // from the unedited tree's index
        try doc.apply(.updateTitle([0], title: "Screen Z"))
        let edited = doc.source
        #expect(!edited.tree.isDense)
        let found = edited.search(SearchQuery("screen z"))
        #expect(found.hits.map { edited.path(of: $0) } == [[0]])
        #expect(edited.search(SearchQuery("screen")).total == 11)
        #expect(seedSource().search(SearchQuery("scr\u{0}een")).total == 0)
    }

    @Test("cancellation stops the scan at its next check, in the index and in the walk")
    func cancellation() {
        // 30 000 rows: about 300 KiB of titles, several 64 KiB checks.
        let rows = (0 ..< 30_000).map { row("Row number \($0) of the big level", [], [("v", .string("value \($0)"))]) }
        let source = DocumentSource(tree: Doc.object([("Rows", .array(rows))]).tree)
        _ = source.search(SearchQuery("row"))
        #expect(source.searchCache.bytes == 0)  // one search walks; the next builds the index
        for values in [false, true] {
            var asked = 0
            do {
                _ = try source.search(SearchQuery("row", includeValues: values), until: { asked += 1; return asked == 2 })
                Issue.record("the search was not cancelled (values: \(values))")
            } catch {
                #expect(error == SearchCancelled())
            }
            #expect(asked == 2, "values: \(values)")  // it stopped at the check that said so
            var never = 0
            let whole = try? source.search(SearchQuery("row", includeValues: values), until: { never += 1; return false })
            #expect(whole?.total == 30_000)
            #expect(never > 2)  // long enough for the cancelled run to have stopped early
        }
    }

    @Test("concurrent searches of one source build the index once and agree")
    func concurrent() async {
        var rng = SplitMix(state: 3)
        let source = Self.outline(&rng, rows: 5000)
        let expected = try! source.walk(Array("ab".utf8), SearchQuery("ab"), { false })
        let results = await withTaskGroup(of: SearchResult.self) { group in
            for _ in 0 ..< 16 { group.addTask { source.search(SearchQuery("ab")) } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 == expected })
        #expect(source.searchCache.bytes > 0)
        #expect(source.search(SearchQuery("ab")) == expected)
    }
}
