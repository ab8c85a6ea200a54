import DrillDownCore
import GRDB

/// ``RelationalConnection`` on an open GRDB `Database` (statements cached by GRDB).
struct SQLiteRelationalConnection: RelationalConnection {
    let db: Database

    var dialect: SQLDialect { .sqlite }

    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]] {
        let cursor = try GRDB.Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments))
        var rows: [[DatabaseValue]] = []
        while let row = try cursor.next() {
            rows.append((0 ..< row.count).map { row[$0] as DatabaseValue })
        }
        return rows
    }

    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws {
        try db.cachedStatement(sql: sql).execute(arguments: StatementArguments(arguments))
    }

    func relations() throws -> [(name: String, isView: Bool)] {
        try GRDB.Row.fetchAll(db, sql: "SELECT name, type FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name")
            .map { (name: $0[0] as String, isView: ($0[1] as String) == "view") }
    }

    func columns(of relation: String, isView: Bool) throws -> [RelationalColumn] {
        let rowID = isView ? nil : try db.primaryKey(relation).rowIDColumn
        return try db.columns(in: relation).map { c in
            RelationalColumn(
                name: c.name, type: c.type, affinity: ColumnValue.affinity(of: c.type), notNull: c.isNotNull,
                hasDefault: c.defaultValueSQL != nil, isRowID: rowID.map { $0.caseInsensitiveCompare(c.name) == .orderedSame } ?? false)
        }
    }
}

/// The database a ``RelationalSource`` reads: a connection per read, or (inside one of the
/// store's write transactions, on that transaction's thread only) the transaction's own.
package protocol RelationalDatabase: Sendable {
    /// Runs `body` with a connection for reading.
    func read<T>(_ body: (any RelationalConnection) throws -> T) throws -> T
}

/// A ``RelationalDatabase`` an editor writes: one transaction per step, serialized with every
/// other writer, and a version that another writer's commit changes.
package protocol RelationalWritableDatabase: RelationalDatabase {
    /// The version now: it differs from the last one seen when another writer committed since.
    func version() throws -> Int64
    /// Whether ``version()`` is worth asking now (a database that hears of changes says when).
    func refreshDue() -> Bool
    /// Runs `body` in one write transaction, after every other writer's (it waits for theirs),
    /// with the version as the transaction sees it; commits when `body` returns, rolls back when
    /// it throws. Returns `body`'s result and the version after the commit.
    func write<T>(_ body: (any RelationalConnection, _ version: Int64) throws -> T) throws -> (T, Int64)
    /// A database failure as an edit error (``EditError/Reason/unavailable`` when the server is away).
    func editError(_ error: any Error, file: String) -> EditError
    /// An element whenever another writer announced a change: when to refresh without waiting.
    var news: AsyncStream<Void>? { get }
}

extension RelationalWritableDatabase {
    package func refreshDue() -> Bool { true }
    package var news: AsyncStream<Void>? { nil }
    package func editError(_ error: any Error, file: String) -> EditError { EditError(StoreError(file: file, error).description) }
}

/// ``RelationalDatabase`` over a GRDB reader (a `DatabaseQueue` or `DatabasePool`); writable
/// through a `DatabaseQueue` (`BEGIN IMMEDIATE` per step, `PRAGMA data_version` as the version).
struct SQLiteRelationalDatabase: RelationalWritableDatabase {
    let reader: any DatabaseReader

    func read<T>(_ body: (any RelationalConnection) throws -> T) throws -> T {
        try reader.read { db in try body(SQLiteRelationalConnection(db: db)) }
    }

    func version() throws -> Int64 {
        try reader.read { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
    }

    func write<T>(_ body: (any RelationalConnection, Int64) throws -> T) throws -> (T, Int64) {
        guard let writer = reader as? any DatabaseWriter else { throw StoreError(file: "", message: "the database is open read-only") }
        var result: T?
        var failure: (any Error)?
        var seen: Int64 = 0
        try writer.writeWithoutTransaction { db in
            try db.inTransaction(.immediate) {
                seen = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
                do {
                    result = try body(SQLiteRelationalConnection(db: db), seen)
                } catch {
                    failure = error
                    return .rollback
                }
                return .commit
            }
        }
        if let failure { throw failure }
        guard let result else { throw StoreError(file: "", message: "the change was not written") }
        // Our own commits leave this connection's data_version as it was.
        return (result, seen)
    }
}
