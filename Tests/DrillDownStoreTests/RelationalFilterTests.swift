import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

/// Filters and facets in SQL on the relational store (issue 33): the `WHERE` over a level's
/// numbered rows keeps exactly the rows the documents' scan keeps, a facet's `GROUP BY` counts
/// what a pass counts, and values are bound: an injection attempt matches nothing and changes nothing.
@Suite("Relational filters")
struct RelationalFilterTests {
    typealias Music = RelationalSourceTests.Music

    /// The rows a scan keeps (the presenter's evaluation, as on documents).
    func scanned(_ p: Presenter, _ level: NodeID, _ filter: BoundFilter) -> [Int] {
        p.source.children(of: level).enumerated().filter { p.matches($0.element, filter) }.map(\.offset)
    }

    @Test("WHERE keeps the rows the scan keeps, on the first level and on a deeper one")
    func sqlEqualsScan() throws {
        let music = try Music(artists: 12)
        defer { music.cleanUp() }
        let s = music.source
        let p = Presenter(source: s)
        let album = s.node(at: [3, 1])!
        let cases: [(NodeID, String)] = [
            (s.root, "country=US"), (s.root, "country exists"), (s.root, "name~ARTIST 1"), (s.root, "name in (\"Artist 2\", \"Artist 11\")"),
            (s.root, "country!=US or name=\"Artist 4\""), (s.root, "title>\"Artist 5\""),
            (album, "length>180"), (album, "length<=181 and track>=1"), (album, "rating>4 and name~\"song 4.2\""), (album, "track in (1, 3)"),
        ]
        for (level, expression) in cases {
            let bound = try p.bind(Filter(expression), to: level)
            let stored = try #require(s.matchingIndices(ofChildren: level, where: bound), "\(expression): the store answers in SQL")
            #expect(stored == scanned(p, level, bound), "\(expression)")
            #expect(try p.filtering(level, by: Filter(expression)).rows(of: level).map { $0.path.indices.last! } == stored)
        }
    }

    @Test("a facet is a GROUP BY with the counts a pass makes, over the filtered level too")
    func facetIsGroupBy() throws {
        let music = try Music(artists: 9)
        defer { music.cleanUp() }
        let s = music.source
        let p = Presenter(source: s)
        let facet = try p.facet(of: s.root, field: "country")
        #expect(facet.values.map(\.value) == ["US"] && facet.values.map(\.count) == [5])
        #expect(facet.rows == 9 && facet.missing == 4 && facet.distinct == 1)
        let test = try #require(p.bind(Filter("country exists"), to: s.root).tests.first)
        #expect(s.facet(ofChildren: s.root, field: test, where: nil, limit: 10) != nil, "counted by the store")
        let filtered = try p.filtering(s.root, by: Filter("name~\"artist 1\"")).facet(of: s.root, field: "country")
        #expect(filtered.rows == 1 && filtered.values.map(\.count) == [1])
    }

    @Test("an injection attempt in a value is a bound value: it matches nothing and changes nothing")
    func injection() throws {
        let music = try Music(artists: 4)
        defer { music.cleanUp() }
        let s = music.source
        let p = Presenter(source: s)
        for attempt in ["name=\"x'); DROP TABLE songs; --\"", "name=\"Artist 1' OR '1'='1\"", "name~\"%' OR 1=1 --\""] {
            let bound = try p.bind(Filter(attempt), to: s.root)
            #expect(s.matchingIndices(ofChildren: s.root, where: bound) == [], "\(attempt)")
        }
        #expect(throws: FilterError.self) { try p.bind(Filter("\"name; DROP TABLE songs\"=1"), to: s.root) }
        let count = try DatabaseQueue(path: music.path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM songs") }
        #expect(count == 4 * 2 * 3)
    }
}
