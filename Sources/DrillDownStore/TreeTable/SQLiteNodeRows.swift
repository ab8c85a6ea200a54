import DrillDownCore
import GRDB

/// The rows of an SQLite tree table (`nodes`), read through GRDB for a ``TreeTableSource``.
struct SQLiteNodeRows: NodeRowReader {
    let database: DatabaseQueue
    let file: String
    /// Whether `nodes` has the maintained `nchildren` column (version 2); else levels are counted.
    let hasCounts: Bool

    var origin: String { file }

    func read<T>(_ body: (any NodeRowQueries) throws -> T) throws -> T {
        try database.read { db in try body(Queries(db: db, counts: hasCounts)) }
    }

    func describe(_ error: any Error) -> String { StoreError(file: file, error).description }

    /// The queries bound to `db` (an open read or write transaction).
    func queries(_ db: Database) -> Queries { Queries(db: db, counts: hasCounts) }

    struct Queries: NodeRowQueries {
        let db: Database
        let counts: Bool

        func version() throws -> Int64 { try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }

        func roots() throws -> [NodeRecord] { try rows("WHERE parent IS NULL ORDER BY id LIMIT 2", []) }

        func row(id: Int64) throws -> NodeRecord? { try rows("WHERE id = ?", [id]).first }

        func children(of parent: Int64, after: (Int64, Int64)?, limit: Int) throws -> [NodeRecord] {
            if let after {
                return try rows("WHERE parent = ? AND (position, id) > (?, ?) ORDER BY position, id LIMIT ?", [parent, after.0, after.1, limit])
            }
            return try rows("WHERE parent = ? ORDER BY position, id LIMIT ?", [parent, limit])
        }

        func keys(of parent: Int64, after: (Int64, Int64)?, limit: Int) throws -> [(Int64, Int64)] {
            let cursor: RowCursor
            if let after {
                cursor = try GRDB.Row.fetchCursor(
                    db, sql: "SELECT position, id FROM nodes WHERE parent = ? AND (position, id) > (?, ?) ORDER BY position, id LIMIT ?",
                    arguments: [parent, after.0, after.1, limit])
            } else {
                cursor = try GRDB.Row.fetchCursor(
                    db, sql: "SELECT position, id FROM nodes WHERE parent = ? ORDER BY position, id LIMIT ?", arguments: [parent, limit])
            }
            var result: [(Int64, Int64)] = []
            while let r = try cursor.next() { result.append((r[0], r[1])) }
            return result
        }

        func member(of parent: Int64, lowercasedKey: String) throws -> NodeRecord? {
            try rows("WHERE parent = ? AND key = ? COLLATE NOCASE ORDER BY position, id LIMIT 1", [parent, lowercasedKey]).first
        }

        func children(ofAll parents: [Int64]) throws -> [(parent: Int64, row: NodeRecord)] {
            let ids = parents.map(String.init).joined(separator: ",")
            let cursor = try GRDB.Row.fetchCursor(
                db, sql: "SELECT \(SQLiteNodeRows.columns(counts: counts)) FROM nodes WHERE parent IN (\(ids)) ORDER BY parent, position, id")
            var result: [(parent: Int64, row: NodeRecord)] = []
            while let r = try cursor.next() { result.append((r[6], try SQLiteNodeRows.record(r))) }
            return result
        }

        func elements(ofAll parents: [Int64]) throws -> [(parent: Int64, kind: ValueKind, value: String?)] {
            let ids = parents.map(String.init).joined(separator: ",")
            let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT parent, kind, value FROM nodes WHERE parent IN (\(ids)) ORDER BY parent, position, id")
            var result: [(parent: Int64, kind: ValueKind, value: String?)] = []
            while let r = try cursor.next() {
                result.append((r[0], ValueKind(rawValue: UInt8(clamping: r[1] as Int64)) ?? .null, r[2]))
            }
            return result
        }

        /// The rows `sql` (a `WHERE …` clause and its ordering) selects.
        func rows(_ sql: String, _ arguments: StatementArguments) throws -> [NodeRecord] {
            var result: [NodeRecord] = []
            let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT \(SQLiteNodeRows.columns(counts: counts)) FROM nodes \(sql)", arguments: arguments)
            while let row = try cursor.next() { result.append(try SQLiteNodeRows.record(row)) }
            return result
        }
    }

    /// The columns every read takes, in ``record(_:)``'s order.
    static func columns(counts: Bool) -> String {
        "id, kind, key, value, \(counts ? "nchildren" : "(SELECT count(*) FROM nodes AS c WHERE c.parent = nodes.id)"), position, parent"
    }

    static func record(_ row: GRDB.Row) throws -> NodeRecord {
        try NodeRecord(id: row[0], rawKind: row[1], key: row[2], value: row[3], count: row[4], position: row[5])
    }
}
