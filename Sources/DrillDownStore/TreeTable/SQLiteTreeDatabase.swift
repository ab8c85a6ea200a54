import DrillDownCore
import Foundation
import GRDB

/// The ``TreeTableDatabase`` of an SQLite tree table: each step one `BEGIN IMMEDIATE`
/// transaction (waiting up to 5 s for other writers), other writers' commits noticed through
/// `PRAGMA data_version`. Other processes (another `drilldown`, the `sqlite3` shell) write the
/// file without telling, so every ``TreeTableStore/refresh()`` asks; idempotency keys are left to
/// the model, which remembers them for the life of the process.
public struct SQLiteTreeDatabase: TreeTableDatabase {
    /// The file's rows (the source's reader).
    let rows: SQLiteNodeRows

    init(rows: SQLiteNodeRows) { self.rows = rows }

    public func transaction<T>(key: StepKey?, paths: (T) -> [TreePath], _ body: (TreeTableTransaction) throws -> T) throws -> T {
        let rows = rows
        var result: T?
        try rows.database.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                result = try body(TreeTableTransaction(writer: SQLiteNodeRows.Writer(db: db), queries: rows.queries(db), revision: nil))
                return .commit
            }
        }
        guard let result else { throw EditError("the change was not written") }
        return result
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
        let rows = SQLiteNodeRows(database: store.database, file: store.path, hasCounts: true)
        self.init(database: SQLiteTreeDatabase(rows: rows), source: source, schema: schema)
    }
}
