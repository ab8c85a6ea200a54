import DrillDownCore
import DrillDownStore
import Logging
import PostgresNIO

/// The row reads and writes of a change in a PostgreSQL tree table, inside the change's
/// transaction (see ``PostgresTreeStore``): what ``DrillDownStore/TreeTableEditor`` asks for,
/// in PostgreSQL's SQL.
struct PostgresRowWriter: NodeRowWriter {
    let connection: PostgresConnection
    let table: String
    let logger: Logger

    func row(_ id: Int64) throws -> NodeRow? {
        try rows("SELECT \(unescaped: NodeRow.columns) FROM \(unescaped: table) WHERE id = \(id)").first
    }

    func subtree(of id: Int64) throws -> [NodeRow] {
        try rows("""
            WITH RECURSIVE sub(id, depth) AS (SELECT \(id)::int8, 0
                UNION ALL SELECT n.id, sub.depth + 1 FROM \(unescaped: table) AS n JOIN sub ON n.parent = sub.id)
            SELECT t.id, t.parent, t.position, t.kind, t.key, t.value FROM sub JOIN \(unescaped: table) t ON t.id = sub.id ORDER BY sub.depth
            """)
    }

    /// From the table's sequence. Writers of the table hold its revision row (see
    /// ``PostgresTreeStore``), so no other writer takes ids in between and the block is consecutive.
    func allocate(_ n: Int) throws -> Int64 {
        let sequence = "\(table)_ids"
        let first = try connection.rows("SELECT nextval(\(sequence)::regclass)", logger)[0].decode(Int64.self)
        if n > 1 { try connection.execute("SELECT setval(\(sequence)::regclass, \(first + Int64(n) - 1))", logger) }
        return first
    }

    func position(ofChild index: Int, last: Bool, of parent: Int64, excluding: Int64) throws -> Int64? {
        let query: PostgresQuery =
            last
            ? "SELECT position FROM \(unescaped: table) WHERE parent = \(parent) AND id <> \(excluding) ORDER BY position DESC, id DESC LIMIT 1"
            : "SELECT position FROM \(unescaped: table) WHERE parent = \(parent) AND id <> \(excluding) ORDER BY position, id LIMIT 1 OFFSET \(index)"
        return try connection.rows(query, logger).first.map { try $0.decode(Int64.self) }
    }

    func children(of parent: Int64, excluding: Int64) throws -> [NodeRow] {
        try rows("SELECT \(unescaped: NodeRow.columns) FROM \(unescaped: table) WHERE parent = \(parent) AND id <> \(excluding) ORDER BY position, id")
    }

    func memberKeys(ofFirstChildrenOf list: Int64, lowercasedKeys: [String]) throws -> [(Int64, String)] {
        try connection.rows("""
            SELECT p.id, m.key FROM (SELECT id, position FROM \(unescaped: table) WHERE parent = \(list) ORDER BY position, id LIMIT 100) AS p
            JOIN \(unescaped: table) AS m ON m.parent = p.id
            WHERE translate(m.key, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = ANY(\(lowercasedKeys)::text[])
            ORDER BY p.position, p.id, m.position, m.id
            """, logger).map { try $0.decode((Int64, String).self) }
    }

    func hasMember(_ parent: Int64, key: String, other: Int64) throws -> Bool {
        try !connection.rows("SELECT 1 FROM \(unescaped: table) WHERE parent = \(parent) AND key = \(key) AND id <> \(other) LIMIT 1", logger).isEmpty
    }

    func member(of parent: Int64, exactKey key: String) throws -> NodeRecord? {
        let queries = PostgresNodeRows.Queries(connection: connection, table: table, counts: true, logger: logger)
        return try queries.records("""
            SELECT \(unescaped: queries.columns) FROM \(unescaped: table) n WHERE parent = \(parent) AND key = \(key) ORDER BY position, id LIMIT 1
            """).first?.row
    }

    func count(of parent: Int64, before: (Int64, Int64)) throws -> Int {
        Int(
            try connection.rows(
                "SELECT count(*) FROM \(unescaped: table) WHERE parent = \(parent) AND (position, id) < (\(before.0), \(before.1))", logger
            )[0].decode(Int64.self))
    }

    func run(_ operation: RowOperation, checked: Bool) throws {
        if checked {
            try check(operation) { ids in
                Int(try connection.rows("SELECT count(*) FROM \(unescaped: table) WHERE parent = ANY(\(ids)::int8[])", logger)[0].decode(Int64.self))
            }
        }
        switch operation {
        case .insert(let rows):
            var batch = RowBatch()
            for row in rows {
                batch.append(id: row.id, parent: row.parent, position: row.position, kind: Int16(row.kind.rawValue), key: row.key, value: row.value)
            }
            try batch.insert(into: table, connection, logger)
        case .delete(let rows):
            try connection.execute("DELETE FROM \(unescaped: table) WHERE id = ANY(\(rows.map(\.id))::int8[])", logger)
        case .update(_, let after):
            try connection.execute("""
                UPDATE \(unescaped: table) SET parent = \(after.parent), position = \(after.position), kind = \(Int16(after.kind.rawValue)),
                    key = \(after.key), value = \(after.value) WHERE id = \(after.id)
                """, logger)
        }
    }

    func rows(_ query: PostgresQuery) throws -> [NodeRow] {
        try connection.rows(query, logger).map { row in
            let (id, parent, position, kind, key, value) = try row.decode((Int64, Int64?, Int64, Int16, String?, String?).self)
            return NodeRow(id: id, parent: parent, position: position, kind: ValueKind(rawValue: UInt8(clamping: kind)) ?? .null, key: key, value: value)
        }
    }
}
