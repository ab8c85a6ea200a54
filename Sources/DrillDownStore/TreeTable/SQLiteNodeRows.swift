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

    func describe(_ error: any Error) -> String { StoreError(file: file, error).message }

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

        func sortedIndices(of parent: Int64, memberKeys: [String], scalarsByValue: Bool, descending: Bool, articles: [String]) throws -> [Int32]? {
            guard !memberKeys.isEmpty else { return nil }
            db.add(function: SortCollation.keyFunction(ignoring: articles))
            let marks = memberKeys.map { _ in "?" }.joined(separator: ", ")
            let rank = memberKeys.indices.map { "WHEN ? THEN \($0)" }.joined(separator: " ")
            let containers = "(\(ValueKind.object.rawValue), \(ValueKind.array.rawValue))"
            let member = """
                (SELECT f.value FROM nodes f WHERE f.parent = c.id AND f.kind NOT IN \(containers) AND lower(f.key) IN (\(marks))
                 ORDER BY CASE lower(f.key) \(rank) END, f.position, f.id LIMIT 1)
                """
            let value = "CASE WHEN c.kind IN \(containers) THEN \(member) ELSE \(scalarsByValue ? "c.value" : "NULL") END"
            let sql = """
                SELECT i FROM (SELECT ROW_NUMBER() OVER (ORDER BY c.position, c.id) - 1 AS i,
                    \(SortCollation.keyFunctionName)(\(value)) AS k FROM nodes c WHERE c.parent = ?)
                ORDER BY k IS NULL, k \(descending ? "DESC" : "ASC"), i
                """
            let arguments: [(any DatabaseValueConvertible)?] = memberKeys + memberKeys + [parent]
            return try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { Int32(truncatingIfNeeded: $0) }
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

extension SQLiteNodeRows {
    /// The row reads and writes of a change, in `db`'s open write transaction.
    struct Writer: NodeRowWriter {
        let db: Database

        func row(_ id: Int64) throws -> NodeRow? {
            try GRDB.Row.fetchOne(db, sql: "SELECT \(NodeRow.columns) FROM nodes WHERE id = ?", arguments: [id]).map(NodeRow.init)
        }

        func subtree(of id: Int64) throws -> [NodeRow] {
            try GRDB.Row.fetchAll(db, sql: """
                WITH RECURSIVE sub(id, depth) AS (SELECT ?, 0 UNION ALL SELECT n.id, sub.depth + 1 FROM nodes AS n JOIN sub ON n.parent = sub.id)
                SELECT nodes.id, parent, position, kind, key, value FROM sub JOIN nodes ON nodes.id = sub.id ORDER BY sub.depth
                """, arguments: [id]).map(NodeRow.init)
        }

        /// Above every id in the table and every id this file ever handed out (so an undone delete
        /// can put its rows back under their own ids).
        func allocate(_ n: Int) throws -> Int64 {
            let top = try Int64.fetchOne(db, sql: "SELECT max(id) FROM nodes") ?? -1
            let mark = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'nextID'").flatMap { Int64($0) } ?? 0
            let first = max(top + 1, mark)
            try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('nextID', ?)", arguments: [String(first + Int64(n))])
            return first
        }

        func position(ofChild index: Int, last: Bool, of parent: Int64, excluding: Int64) throws -> Int64? {
            if last {
                return try Int64.fetchOne(
                    db, sql: "SELECT position FROM nodes WHERE parent = ? AND id <> ? ORDER BY position DESC, id DESC LIMIT 1",
                    arguments: [parent, excluding])
            }
            return try Int64.fetchOne(
                db, sql: "SELECT position FROM nodes WHERE parent = ? AND id <> ? ORDER BY position, id LIMIT 1 OFFSET ?",
                arguments: [parent, excluding, index])
        }

        func children(of parent: Int64, excluding: Int64) throws -> [NodeRow] {
            try GRDB.Row.fetchAll(
                db, sql: "SELECT \(NodeRow.columns) FROM nodes WHERE parent = ? AND id <> ? ORDER BY position, id", arguments: [parent, excluding]
            ).map(NodeRow.init)
        }

        func memberKeys(ofFirstChildrenOf list: Int64, lowercasedKeys: [String]) throws -> [(Int64, String)] {
            try GRDB.Row.fetchAll(db, sql: """
                SELECT p.id, m.key FROM (SELECT id, position FROM nodes WHERE parent = ? ORDER BY position, id LIMIT 100) AS p
                JOIN nodes AS m ON m.parent = p.id WHERE m.key COLLATE NOCASE IN (\(TreeTableLayout.inList(lowercasedKeys)))
                ORDER BY p.position, p.id, m.position, m.id
                """, arguments: [list]).map { ($0[0], $0[1]) }
        }

        func hasMember(_ parent: Int64, key: String, other: Int64) throws -> Bool {
            try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM nodes WHERE parent = ? AND key = ? AND id <> ?)", arguments: [parent, key, other]) ?? false
        }

        func member(of parent: Int64, exactKey key: String) throws -> NodeRecord? {
            try Queries(db: db, counts: true).rows("WHERE parent = ? AND key = ? ORDER BY position, id LIMIT 1", [parent, key]).first
        }

        func count(of parent: Int64, before: (Int64, Int64)) throws -> Int {
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM nodes WHERE parent = ? AND (position, id) < (?, ?)", arguments: [parent, before.0, before.1]) ?? 0
        }

        func run(_ operation: RowOperation, checked: Bool) throws {
            if checked {
                try check(operation) { ids in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM nodes WHERE parent IN (\(ids.map(String.init).joined(separator: ",")))") ?? 0
                }
            }
            switch operation {
            case .insert(let rows):
                let statement = try db.makeStatement(sql: "INSERT INTO nodes(\(NodeRow.columns)) VALUES (?, ?, ?, ?, ?, ?)")
                for row in rows {
                    try statement.execute(arguments: [row.id, row.parent, row.position, Int64(row.kind.rawValue), row.key, row.value])
                }
            case .delete(let rows):
                for chunk in stride(from: 0, to: rows.count, by: 500) {
                    let ids = rows[chunk ..< min(rows.count, chunk + 500)].map { String($0.id) }.joined(separator: ",")
                    try db.execute(sql: "DELETE FROM nodes WHERE id IN (\(ids))")
                }
            case .update(_, let after):
                try db.execute(
                    sql: "UPDATE nodes SET parent = ?, position = ?, kind = ?, key = ?, value = ? WHERE id = ?",
                    arguments: [after.parent, after.position, Int64(after.kind.rawValue), after.key, after.value, after.id])
            }
        }
    }
}

extension NodeRow {
    init(_ row: GRDB.Row) {
        self.init(
            id: row[0], parent: row[1], position: row[2], kind: ValueKind(rawValue: UInt8(clamping: row[3] as Int64)) ?? .null, key: row[4],
            value: row[5])
    }
}
