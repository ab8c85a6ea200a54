import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

/// An edited SQLite tree table checkpoints its write-ahead log in the background, not inside the
/// commit of whichever step takes it past SQLite's 1 000 pages (that step waited 3–4 ms, the p99 of
/// renames on a 1M-row table with the history on).
@Suite("SQLite tree table: WAL checkpoints off the writers' path")
struct WALCheckpointTests {
    @Test("the store's connection checkpoints only past the safety bound, and the checkpointer runs every interval commits")
    func background() async throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("w.sqlite")
        try SQLiteTreeStore(path: path).write(seedTree, documentFormat: "json")
        let store = try TreeTableStore(path: path)
        let pages = try await store.database.rows.database.read { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") }
        #expect(pages == WALCheckpointer.safetyPages)
        let model = DocumentModel(store: store)
        for i in 0..<(2 * WALCheckpointer.interval) {
            try await model.apply(.updateTitle([0], title: "Item \(i)"))
        }
        let checkpointer = store.database.checkpointer
        await Self.firstCheckpoint(of: checkpointer)
        #expect(checkpointer.completed >= 1)
        // Every step is in the file, whatever the checkpoints did meanwhile.
        let reopened = try TreeTableStore(path: path)
        let source = reopened.snapshot
        #expect(source.title(of: source.node(at: [0])!) == "Item \(2 * WALCheckpointer.interval - 1)")
    }

    /// Returns once `checkpointer` has completed a checkpoint, or after 10 s (they run on threads of
    /// their own).
    static func firstCheckpoint(of checkpointer: WALCheckpointer) async {
        await BlockingWork.run(label: "test.wait") {
            let deadline = ContinuousClock.now + .seconds(10)
            while checkpointer.completed == 0, ContinuousClock.now < deadline { usleep(1000) }
        }
    }
}
