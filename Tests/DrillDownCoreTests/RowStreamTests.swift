import Foundation
import Testing
@testable import DrillDownCore

/// `Presenter.forEachRow(of:offset:limit:_:)`: the rows of `rows(of:offset:limit:)`, one at a time,
/// whatever window, order or filter (issue 31, the level page's first view builds no array of rows).
@Suite("Rows one at a time")
struct RowStreamTests {
    /// The rows `forEachRow` hands over, each kept (a copy outlives the shared path buffer).
    func streamed(_ p: Presenter, _ id: NodeID, offset: Int = 0, limit: Int = .max) -> [Row] {
        var rows: [Row] = []
        p.forEachRow(of: id, offset: offset, limit: limit) { rows.append($0) }
        return rows
    }

    /// Every window of a level: before, inside, across and past its end.
    func expectSameWindows(_ p: Presenter, _ id: NodeID) {
        let count = p.rowCount(of: id)
        for offset in [0, 1, count - 1, count, count + 3, -2] {
            for limit in [0, 1, 2, count, .max] {
                let expected = p.rows(of: id, offset: offset, limit: limit)
                #expect(streamed(p, id, offset: offset, limit: limit) == expected, "offset \(offset) limit \(limit)")
            }
        }
    }

    @Test("a nested level in generic mode: titles, item counts, values and each row's own path")
    func generic() throws {
        let doc = Doc.object([("a", .array([.int(1), .object([("x", .int(2)), ("y", .array([]))]), .string("s"), .null]))])
        let source = DocumentSource(tree: doc.tree, mode: .generic)
        let p = Presenter(source: source)
        let level = try #require(source.node(at: TreePath([0])))
        let rows = streamed(p, level)
        #expect(rows.map(\.path.description) == ["0.0", "0.1", "0.2", "0.3"])
        #expect(rows.map(\.subtitle) == ["1", "2 items", "s", "null"])
        #expect(rows.map(\.drills) == [false, true, false, false])
        expectSameWindows(p, level)
        expectSameWindows(p, source.root)
    }

    @Test("a sorted level: display order, paths naming the data")
    func sorted() throws {
        let p = try SortTests().library(sort: "title")
        #expect(streamed(p, p.source.root).map(\.path.description) == ["3", "4", "1", "0", "2"])
        expectSameWindows(p, p.source.root)
    }

    @Test("a filtered and sorted level: only its matching rows")
    func filtered() throws {
        let p = try FilterTests.presenter()
        let root = p.source.root
        let rock = try p.sorting(root, by: SortRule("-length")).filtering(root, by: Filter("genre in (Rock, Jazz)"))
        #expect(streamed(rock, root).map(\.title) == ["So What", "Kashmir", "Stairway", "Blue in Green"])
        expectSameWindows(rock, root)
    }
}
