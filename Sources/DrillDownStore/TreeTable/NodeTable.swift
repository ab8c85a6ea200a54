import DrillDownCore
import GRDB
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// The rows of a `nodes` table in memory (``ParentLinkedRows``), scanned with SQLite's raw statement API.
struct NodeTable {
    var rows = ParentLinkedRows()

    /// Scans the table in rowid order.
    init(_ db: Database) throws {
        let expected = try Int.fetchOne(db, sql: "SELECT max(id) + 1 FROM nodes") ?? 0
        rows.reserveCapacity(expected)
        let statement = try db.makeStatement(sql: "SELECT id, parent, position, kind, key, value FROM nodes")
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            rows.append(
                id: sqlite3_column_int64(handle, 0),
                parent: sqlite3_column_type(handle, 1) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, 1),
                position: sqlite3_column_int64(handle, 2),
                kind: sqlite3_column_int64(handle, 3),
                key: Self.text(handle, 4), value: Self.text(handle, 5))
        }
    }

    /// A text column's bytes, valid until the next step.
    private static func text(_ handle: OpaquePointer, _ column: CInt) -> UnsafeBufferPointer<UInt8>? {
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, column)))
    }

    /// The tree the rows make, depth-first from the root.
    func build() throws(ParentLinkedRows.Invalid) -> TreeStore { try rows.build().tree }
}
