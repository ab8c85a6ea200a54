import GRDB

/// ``RelationalDatabase`` over a GRDB reader (a `DatabaseQueue` or `DatabasePool`); writable
/// through a `DatabaseQueue` (`BEGIN IMMEDIATE` per step, `PRAGMA data_version` as the version).
struct SQLiteRelationalDatabase: RelationalWritableDatabase {
    let reader: any DatabaseReader
    /// The collation sorted text columns order by (see ``SortCollation``), added to each connection.
    var collation = SortCollation.collation(ignoring: [])
    /// Checkpoints the write-ahead log in the background instead of in a step's commit (`nil`
    /// for a read-only source, or a file with a rollback journal).
    var checkpointer: WALCheckpointer?

    func read<T>(_ body: (any RelationalConnection) throws -> T) throws -> T {
        try reader.read { db in
            db.add(collation: collation)
            db.add(function: FilterSQL.foldFunction)
            return try body(SQLiteRelationalConnection(db: db))
        }
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
            db.add(collation: collation)
            db.add(function: FilterSQL.foldFunction)
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
        checkpointer?.committed()
        // Our own commits leave this connection's data_version as it was.
        return (result, seen)
    }
}
