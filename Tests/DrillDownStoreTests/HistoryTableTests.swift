import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

@Suite("SQLite tree table: the history table written in each step's transaction")
struct HistoryTableTests {
    @Test("a step writes its record in drilldown_history with its author; a refused step writes none; Revert and per-user Undo read it")
    func historyTable() async throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("h.sqlite")
        try SQLiteTreeStore(path: path).write(seedTree, documentFormat: "json")
        let model = DocumentModel(store: try TreeTableStore(path: path))
        let log = try SQLiteHistoryLog(path: path)
        await model.keepHistory(in: log)
        let ana = HistoryAuthor(user: "ana"), bob = HistoryAuthor(user: "bob")
        try await HistoryAuthor.$current.withValue(ana) { try await model.apply(.updateTitle([0], title: "First")) }
        try await HistoryAuthor.$current.withValue(bob) { try await model.apply(.insert(NewNode(title: "Top"), parent: .root, index: 0)) }
        await #expect(throws: EditError.self) {
            try await HistoryAuthor.$current.withValue(bob) { try await model.apply(.updateTitle([99], title: "x")) }
        }
        let page = try log.page(touching: .root, offset: 0, limit: 10)
        #expect(page.total == 2)
        #expect(page.records.map(\.user) == ["bob", "ana"])
        #expect(try log.records(after: 0, limit: 1).map(\.user) == ["ana"])
        #expect(page.records[1].inverse == [.updateTitle([0], title: "Item 1")])
        #expect(page.records[0].inverse == [.delete([0])])
        let columns = try DatabaseQueue(path: path).read { db in try Row.fetchAll(db, sql: "SELECT user, kind FROM drilldown_history ORDER BY id") }
        #expect(columns.map { $0["user"] as String? } == ["ana", "bob"])
        // ana's Undo takes back her rename (now at [1]), not bob's later insert.
        try await HistoryAuthor.$current.withValue(ana) { try await model.undo() }
        let source = await model.source
        #expect(source.title(of: source.node(at: [1])!) == "Item 1")
        #expect(source.title(of: source.node(at: [0])!) == "Top")
        #expect(try log.page(touching: .root, offset: 0, limit: 1).records[0].kind == .undo)
        // A new model on the same file (another process) finds bob's step for bob's Undo.
        let other = DocumentModel(store: try TreeTableStore(path: path))
        await other.keepHistory(in: try SQLiteHistoryLog(path: path))
        try await HistoryAuthor.$current.withValue(bob) { try await other.undo() }
        let after = await other.source
        #expect(after.title(of: after.node(at: [0])!) == "Item 1")
    }

    @Test("a log read before the history table exists sees the records written after another connection made it")
    func tableMadeLater() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("later.sqlite")
        try DatabaseQueue(path: path).write { db in try db.execute(sql: "CREATE TABLE albums(id INTEGER PRIMARY KEY)") }
        let log = try SQLiteHistoryLog(path: path)
        // A model reads the log as it starts keeping the history: the table is not there yet.
        #expect(try log.page(touching: .root, offset: 0, limit: 1).records.isEmpty)
        // The store's own connection makes it with its first step.
        let record = HistoryRecord([.updateTitle([0], title: "x")], paths: [[0]], before: DocumentSource(tree: seedTree), by: HistoryAuthor(user: "ana"))
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: SQLiteHistoryLog.createTable)
            try SQLiteHistoryLog.insert(record, into: db)
        }
        #expect(try log.recent(by: HistoryAuthor(user: "ana"), limit: 16).count == 1)
        #expect(try log.page(touching: .root, offset: 0, limit: 1).total == 1)
    }
}
