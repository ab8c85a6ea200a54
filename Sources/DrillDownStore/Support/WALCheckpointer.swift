import DrillDownCore
import Foundation
import GRDB

/// Checkpoints an edited SQLite file's write-ahead log off the writers' path: a tree table's
/// (`SQLiteTreeDatabase`) and a database edited through its `levels:` mapping
/// (`SQLiteRelationalDatabase`, when the file is in WAL mode).
///
/// By default SQLite checkpoints inside the commit that takes the log past 1 000 pages: that
/// commit copies ~4 MB into the database file and syncs it, and its step waits (measured on a
/// 1M-row tree table: the renames that did it took 3–4 ms against 0.6 ms, every ~150 renames with
/// the history on, so they were the p99; on the 1M-song mapped music database a rename writes 1
/// page, 5 with its history record, so the checkpoint came every ~190 renames instead of every
/// 1 000, though there it cost only ~0.5 ms: see Docs/benchmarks.md). Instead, every ``interval``
/// commits this runs a `PASSIVE`
/// checkpoint on a connection of its own, on a thread of its own (see `BlockingWork`): writers go
/// on appending meanwhile, and readers are not waited for. The store's connection keeps an
/// automatic checkpoint only as a bound (``safetyPages``, see ``takeOver(_:)``): under writes so
/// steady that the log never drains between two commits, it still cannot grow past ~32 MB.
final class WALCheckpointer: @unchecked Sendable {
    /// Commits between two checkpoints (a rename writes ~7 pages: ~450 pages, under 2 MB).
    static let interval = 64
    /// The log's size, in pages, at which a commit checkpoints after all (SQLite's default: 1 000).
    static let safetyPages = 8_000
    private var done = 0

    let path: String
    private let lock = NSLock()
    private var commits = 0
    private var running = false
    private var connection: DatabaseQueue?

    init(path: String) { self.path = path }

    /// Checkpoints run so far.
    var completed: Int { lock.withLock { done } }

    /// Moves the automatic checkpoints of `database`, the store's own connection, to ``safetyPages``.
    static func takeOver(_ database: some DatabaseWriter) throws {
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = \(safetyPages)") }
    }

    /// A checkpointer for the file at `path` that has taken over the checkpoints of `database`,
    /// the store's own connection to it; `nil` when the file keeps a rollback journal (no log to
    /// checkpoint; its journal mode is left as it is).
    static func attached(to database: some DatabaseWriter, path: String) throws -> WALCheckpointer? {
        let mode = try database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        guard mode?.lowercased() == "wal" else { return nil }
        try takeOver(database)
        return WALCheckpointer(path: path)
    }

    /// Notes a commit; every ``interval``-th starts a checkpoint unless one is still running.
    func committed() {
        let due = lock.withLock { () -> Bool in
            commits += 1
            guard commits >= Self.interval, !running else { return false }
            commits = 0
            running = true
            return true
        }
        if due { BlockingWork.enqueue(label: "drilldown.wal-checkpoint") { [self] in checkpoint() } }
    }

    /// One `PASSIVE` checkpoint (whatever it cannot copy now, because a reader still uses it, the
    /// next one copies).
    func checkpoint() {
        defer { lock.withLock { running = false } }
        do {
            let queue = try lock.withLock { () throws -> DatabaseQueue in
                if let connection { return connection }
                // The file is in WAL mode already (the mode is kept in the file): this connection
                // sets none, so it never changes a file's journal mode.
                var configuration = Configuration()
                configuration.busyMode = .timeout(5)
                configuration.label = "DrillDown checkpoints"
                let made = try DatabaseQueue(path: path, configuration: configuration)
                connection = made
                return made
            }
            try queue.writeWithoutTransaction { db in _ = try db.checkpoint(.passive) }
            lock.withLock { done += 1 }
        } catch {
            // Nothing is lost: the log keeps the pages, and the next checkpoint copies them.
        }
    }
}
