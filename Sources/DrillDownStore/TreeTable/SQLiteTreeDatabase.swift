import DrillDownCore
import Foundation
import GRDB

/// The ``TreeTableDatabase`` of an SQLite tree table: each step one `BEGIN IMMEDIATE`
/// transaction (waiting up to 5 s for other writers), other writers' commits noticed through
/// `PRAGMA data_version`. Other processes (another `drilldown`, the `sqlite3` shell) write the
/// file without telling, so every ``TreeTableStore/refresh()`` asks.
///
/// A keyed step records its key, what it was asked and its paths in the file's `step_keys`
/// table, in the step's own transaction (looked up after `BEGIN IMMEDIATE`, so a step with the
/// same key in another process has committed or rolled back by then): a retry through another
/// `drilldown` on the same file, or after a restart, finds it. Keys are kept for a day.
///
/// ```sql
/// CREATE TABLE step_keys(key TEXT PRIMARY KEY, request TEXT NOT NULL, paths TEXT NOT NULL, at INTEGER NOT NULL);  -- at: Unix seconds
/// ```
public struct SQLiteTreeDatabase: TreeTableDatabase {
    /// The file's rows (the source's reader).
    let rows: SQLiteNodeRows
    /// Checkpoints the log in the background instead of in a step's commit.
    let checkpointer: WALCheckpointer

    init(rows: SQLiteNodeRows) throws {
        self.rows = rows
        checkpointer = WALCheckpointer(path: rows.file)
        try WALCheckpointer.takeOver(rows.database)
    }

    public func transaction<T>(key: StepKey?, paths: (T) -> [TreePath], _ body: (TreeTableTransaction) throws -> T) throws -> T {
        let rows = rows
        var result: T?
        try rows.database.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                if let key, let row = try GRDB.Row.fetchOne(db, sql: "SELECT request, paths FROM step_keys WHERE key = ?", arguments: [key.key]) {
                    throw RecordedStep(outcome: StepOutcome(request: row[0], paths: StepOutcome.paths(row[1])))
                }
                let done = try body(
                    TreeTableTransaction(
                        writer: SQLiteNodeRows.Writer(db: db), queries: rows.queries(db), revision: nil,
                        recordHistory: { record in try SQLiteHistoryLog.insert(record, into: db) }))
                if let key {
                    try db.execute(
                        sql: "INSERT INTO step_keys(key, request, paths, at) VALUES (?, ?, ?, CAST(strftime('%s', 'now') AS INTEGER))",
                        arguments: [key.key, key.request, StepOutcome.text(paths(done))])
                }
                result = done
                return .commit
            }
        }
        guard let result else { throw EditError("the change was not written") }
        checkpointer.committed()
        return result
    }

    /// Creates `step_keys` when missing and forgets keys older than a day.
    func prepareKeys() throws(StoreError) {
        do {
            try rows.database.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS step_keys(key TEXT PRIMARY KEY, request TEXT NOT NULL, paths TEXT NOT NULL, at INTEGER NOT NULL)")
                try db.execute(sql: "DELETE FROM step_keys WHERE at < CAST(strftime('%s', 'now') AS INTEGER) - 86400")
                try db.execute(sql: SQLiteHistoryLog.createTable)
            }
        } catch {
            throw StoreError(file: rows.file, error)
        }
    }

    public func current(_ shown: TreeTableSource, renewing: Bool) throws -> TreeTableSource {
        let rows = rows
        return try rows.database.read { db in renewing ? try shown.renewed(rows.queries(db)) : try shown.current(in: rows.queries(db)) }
    }

    /// Always: only the file's `data_version` tells of other writers.
    public func refreshDue(known: Int64) -> Bool { true }

    /// A local file: always ready.
    public func readiness() -> String? { nil }

    /// `nil`: SQLite announces nothing.
    public var news: AsyncStream<Void>? { nil }

    public func editError(_ error: any Error) -> EditError {
        if let edit = error as? EditError { return edit }
        return EditError("could not write \(rows.file): \(StoreError(file: rows.file, error).message)")
    }
}

extension TreeTableStore where Database == SQLiteTreeDatabase {
    /// Opens the tree table at `path` for editing, migrating a version-1 table once (see
    /// ``SQLiteTreeStore/migrate()``); `mode` and `keys` as for ``TreeTableSource``.
    public init(
        path: String, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String? = nil, schema: Schema = Schema()
    ) throws(StoreError) {
        let store = try SQLiteTreeStore(path: path, create: false)
        try store.migrate()
        let source = try TreeTableSource(store: store, mode: mode, keys: keys, name: name)
        let database: SQLiteTreeDatabase
        do {
            database = try SQLiteTreeDatabase(rows: SQLiteNodeRows(database: store.database, file: store.path, hasCounts: true))
        } catch {
            throw StoreError(file: path, error)
        }
        try database.prepareKeys()
        self.init(database: database, source: source, schema: schema)
    }
}
