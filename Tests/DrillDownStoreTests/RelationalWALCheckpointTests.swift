import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

/// A database edited through its `levels:` mapping checkpoints its write-ahead log in the
/// background, as a tree table does (`WALCheckpointTests`): with the history on, a rename writes 5
/// pages instead of 1, so SQLite's own checkpoint (inside the commit that takes the log past 1 000
/// pages) came every ~190 renames instead of every 1 000, each time in a rename's wait.
@Suite("Mapped SQLite database: WAL checkpoints off the writers' path")
struct RelationalWALCheckpointTests {
    @Test("in WAL mode the store's connection checkpoints only past the safety bound, and the checkpointer runs every interval steps")
    func background() async throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("music.db")
        try makeMusicDatabase(at: path)
        try await DatabaseQueue(path: path).writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        let store = try RelationalStore(path: path, mapping: musicMapping, rootTitle: "Music")
        let database = try #require(store.database as? SQLiteRelationalDatabase)
        let pages = try await database.reader.read { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(pages == WALCheckpointer.safetyPages)
        let checkpointer = try #require(database.checkpointer)
        let model = DocumentModel(store: store)
        await model.keepHistory(in: try SQLiteHistoryLog(path: path))
        let steps = 2 * WALCheckpointer.interval
        for i in 0 ..< steps {
            try await model.apply(.updateTitle([0, 0, 0], title: "Song \(i)"))
        }
        await WALCheckpointTests.firstCheckpoint(of: checkpointer)
        #expect(checkpointer.completed >= 1)
        // Every step and its record are in the file, whatever the checkpoints did meanwhile.
        let check = try DatabaseQueue(path: path)
        let counted = try await check.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM drilldown_history"))
        }
        #expect(counted.0 == "wal")
        #expect(counted.1 == steps)
        let reopened = try RelationalStore(path: path, mapping: musicMapping, rootTitle: "Music").snapshot
        #expect(reopened.title(of: reopened.node(at: [0, 0, 0])!) == "Song \(steps - 1)")
    }

    @Test("a file with a rollback journal keeps it: no checkpointer, SQLite's own setting left as it is")
    func rollbackJournal() async throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("music.db")
        try makeMusicDatabase(at: path)
        let store = try RelationalStore(path: path, mapping: musicMapping, rootTitle: "Music")
        let database = try #require(store.database as? SQLiteRelationalDatabase)
        #expect(database.checkpointer == nil)
        let pages = try await database.reader.read { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(pages == 1000)
        let model = DocumentModel(store: store)
        for i in 0 ..< WALCheckpointer.interval + 1 {
            try await model.apply(.updateTitle([0, 0, 0], title: "Song \(i)"))
        }
        let mode = try await DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "delete")
    }
}
