import Foundation
import Testing
@testable import DrillDownCore

@Suite("Sorted levels (issue 30 item 4)")
struct SortTests {
    /// A level of artists read with a schema whose artist kind has `sort`, and `sortIgnoring`.
    func library(sort: String?, ignoring: [String] = [], section: Bool = false, rows: [Doc]? = nil) throws -> Presenter {
        let artists = rows ?? [
            .object([("name", .string("Miles Davis")), ("plays", .int(10)), ("year", .int(1926))]),
            .object([("name", .string("john Coltrane")), ("plays", .int(9)), ("year", .int(1926))]),
            .object([("name", .string("The Dave Brubeck Quartet")), ("plays", .int(100))]),
            .object([("name", .string("Édith Piaf")), ("plays", .string("many")), ("year", .int(1915))]),
            .object([("name", .string("Herbie Hancock")), ("plays", .int(9)), ("year", .int(1940))]),
        ]
        var kind: [(String, Doc)] = [("title", .string("{name}"))]
        if let sort { kind.append(("sort", .string(sort))) }
        if section { kind += [("section", .string("initial")), ("index", .bool(true))] }
        var top: [(String, Doc)] = [("root", .string("artist")), ("kinds", .object([("artist", .object(kind))]))]
        if !ignoring.isEmpty { top.append(("sortIgnoring", .array(ignoring.map { .string($0) }))) }
        let schema = try Schema(tree: Doc.object(top).tree)
        let source = DocumentSource(tree: Doc.object([("Title", .string("Music")), ("Rows", .array(artists))]).tree, keys: .standard)
        return Presenter(source: source, schema: schema)
    }

    func titles(_ p: Presenter) -> [String] { p.rows(of: p.source.root).map(\.title) }

    @Test("sort: parses title, a field, a template, - for descending, and prints back as written")
    func parsing() throws {
        #expect(try SortRule("title") == SortRule(.title))
        #expect(try SortRule(" -plays ") == SortRule(.field("plays"), descending: true))
        #expect(try SortRule("{year}") == SortRule(.template("{year}")))
        #expect(try SortRule("+Title") == SortRule(.title))
        for text in ["title", "-plays", "{year}", "-{year|number}"] { #expect(try SortRule(text).description == text) }
        #expect(throws: TextTemplate.ParseError.self) { try SortRule("{year") }
        #expect(throws: TextTemplate.ParseError.self) { try SortRule("-") }
    }

    @Test("text sorts ignoring case and accents, stable; paths keep naming the data")
    func collation() throws {
        let p = try library(sort: "title")
        #expect(titles(p) == ["Édith Piaf", "Herbie Hancock", "john Coltrane", "Miles Davis", "The Dave Brubeck Quartet"])
        #expect(p.rows(of: p.source.root).map(\.path.description) == ["3", "4", "1", "0", "2"])
        #expect(p.rows(of: p.source.root, offset: 1, limit: 2).map(\.path.description) == ["4", "1"])
        // Unsorted: the data's order.
        #expect(titles(try library(sort: nil)).first == "Miles Davis")
    }

    @Test("sortIgnoring drops a leading article: The Dave Brubeck Quartet sorts and is indexed under D")
    func articles() throws {
        let p = try library(sort: "title", ignoring: ["The ", "A "], section: true)
        #expect(titles(p) == ["The Dave Brubeck Quartet", "Édith Piaf", "Herbie Hancock", "john Coltrane", "Miles Davis"])
        let sections = try #require(p.sections(of: p.source.root, locale: Locale(identifier: "en_US")))
        #expect(sections.index?.map(\.title) == ["D", "E", "H", "J", "M"])
        #expect(sections.sections.map(\.start) == [0, 1, 2, 3, 4])
        #expect(SortValue.dropArticle("The", ["The "]) == "The")
    }

    @Test("numbers sort numerically, before text; rows without a value come last either way")
    func numbers() throws {
        // plays: 10, 9, 100, "many", 9
        #expect(titles(try library(sort: "plays")) == ["john Coltrane", "Herbie Hancock", "Miles Davis", "The Dave Brubeck Quartet", "Édith Piaf"])
        #expect(titles(try library(sort: "-plays")) == ["Édith Piaf", "The Dave Brubeck Quartet", "Miles Davis", "john Coltrane", "Herbie Hancock"])
        // year: 1926, 1926, (none), 1915, 1940 — a template; the missing one last, ascending and descending.
        #expect(titles(try library(sort: "{year}")) == ["Édith Piaf", "Miles Davis", "john Coltrane", "Herbie Hancock", "The Dave Brubeck Quartet"])
        #expect(titles(try library(sort: "-{year}")) == ["Herbie Hancock", "Miles Davis", "john Coltrane", "Édith Piaf", "The Dave Brubeck Quartet"])
        #expect(!(SortValue("10") < SortValue("9.5")))
        #expect(SortValue("2") < SortValue("abc"))
    }

    @Test("equal values keep the data's order, ascending and descending (stable)", arguments: [false, true])
    func stability(descending: Bool) {
        var rng = SplitMix(state: descending ? 7 : 8)
        let values = (0 ..< 2000).map { _ in SortValue(String(Int.random(in: 0 ..< 20, using: &rng))) }
        let order = LevelOrder(values: values, descending: descending)
        for k in 1 ..< order.count {
            let a = order.dataIndex(at: k - 1), b = order.dataIndex(at: k)
            if values[a] == values[b] { #expect(a < b) } else { #expect(descending ? values[b] < values[a] : values[a] < values[b]) }
            #expect(order.displayPosition(of: b) == k)
        }
    }

    @Test("sections and the jump bar follow the sorted order, so section: initial lists A–Z")
    func sectionsFollowSort() throws {
        let unsorted = try library(sort: nil, section: true)
        #expect(unsorted.sections(of: unsorted.source.root)?.index?.map(\.title) == ["M", "J", "T", "E", "H"])
        let sorted = try library(sort: "title", section: true)
        #expect(sorted.sections(of: sorted.source.root)?.index?.map(\.title) == ["E", "H", "J", "M", "T"])
    }

    @Test("a presenter can sort one level by another rule or show it in the data's order")
    func override() throws {
        let p = try library(sort: "title")
        let root = p.source.root
        #expect(titles(p.sorting(root, by: try SortRule("-plays"))).first == "Édith Piaf")
        #expect(titles(p.sorting(root, by: nil)).first == "Miles Davis")
        #expect(p.sortFields(of: root) == ["plays", "year"], "the title key is the title, not a field")
    }

    @Test("selecting a row of a sorted level opens that row; its path names the data")
    func navigation() throws {
        let p = try library(sort: "title")
        var nav = Navigator(presenter: p)
        nav.showDetail(0)
        #expect(nav.path.description == "3")
        #expect(p.child(of: p.source.root, at: 4).map { p.source.path(of: $0).description } == "2")
        #expect(p.displayPosition(of: p.source.node(at: [2])!) == 4)
    }

    @Test("sort and sortIgnoring are read from a schema and checked")
    func schemaKeys() throws {
        let bad: Doc = .object([("kinds", .object([("a", .object([("sort", .string("{year"))]))]))])
        #expect { try Schema(tree: bad.tree) } throws: { ($0 as? SchemaError)?.field == "kinds.a.sort" }
        let badArticles: Doc = .object([("sortIgnoring", .array([.int(3)]))])
        #expect { try Schema(tree: badArticles.tree) } throws: { ($0 as? SchemaError)?.field == "sortIgnoring" }
        let typo: Doc = .object([("kinds", .object([("a", .object([("srot", .string("title"))]))]))])
        #expect { try Schema(tree: typo.tree) } throws: { "\($0)".contains("did you mean 'sort'") }
    }

    /// The visible rows of `outline` computed the slow way, each level in its display order.
    func naiveRows(_ outline: Outline, _ presenter: Presenter) -> [NodeID] {
        var rows: [NodeID] = []
        func walk(_ n: NodeID) {
            for k in 0 ..< presenter.source.childCount(of: n) {
                let c = presenter.child(of: n, at: k)!
                rows.append(c)
                if outline.isExpanded(c) { walk(c) }
            }
        }
        walk(presenter.source.root)
        return rows
    }

    @Test("the outline's row ⇄ path mapping is exact under a sort after any operations (property)")
    func outlineUnderSort() throws {
        var rng = SplitMix(state: 30)
        for round in 0 ..< 30 {
            var budget = 60 + round * 5
            let source = DocumentSource(tree: randomDoc(&rng, budget: &budget).tree, mode: .generic)
            let descending = round % 2 == 1
            // Every level sorted by its rows' titles (keys k0…k5, or array items' values), half descending.
            let containers = (0 ..< source.capacity).map { NodeID($0) }.filter { source.childCount(of: $0) > 0 }
            guard !containers.isEmpty else { continue }
            let presenter = sortedEverywhere(source, descending: descending)
            var outline = Outline(presenter: presenter)
            for step in 0 ..< 60 {
                let id = containers.randomElement(using: &rng)!
                randomOperation(on: &outline, id, &rng)
                if step % 6 == 5 { check(outline, presenter) }
            }
            check(outline, presenter)
        }
    }

    func check(_ outline: Outline, _ presenter: Presenter) {
        let expected = naiveRows(outline, presenter)
        #expect(outline.visibleCount == expected.count)
        for (i, id) in expected.enumerated() {
            #expect(outline.node(atRow: i) == id)
            #expect(outline.row(of: id) == i)
            // The row's TreePath names its place in the data.
            #expect(presenter.source.node(at: presenter.source.path(of: id)) == id)
        }
        #expect(outline.node(atRow: expected.count) == nil)
    }

    /// A presenter whose schema sorts every level of `source` by title: one kind, the root's and
    /// its own children's.
    func sortedEverywhere(_ source: any Source, descending: Bool) -> Presenter {
        var any = Template(kind: "any")
        any.sort = SortRule(.title, descending: descending)
        any.childKind = "any"
        var schema = Schema()
        schema.kinds = [any]
        schema.rootKind = "any"
        return Presenter(source: source, schema: schema)
    }
}
