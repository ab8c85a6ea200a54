import DrillDownCore
import DrillDownStore
import Logging
import PostgresNIO

/// The rows of a PostgreSQL tree table, read for a lazy ``DrillDownStore/TreeTableSource``:
/// each level a page at a time through the `(parent, position, id)` index, with keyset
/// pagination, on a connection of its own (``PostgresSession``). The version is the table's
/// revision, so a snapshot knows when another instance committed.
struct PostgresNodeRows: NodeRowReader {
    let session: PostgresSession
    let table: String
    /// Whether the table has the maintained `nchildren` column; else children are counted.
    let hasCounts: Bool

    var origin: String { session.location.description }

    func read<T>(_ body: (any NodeRowQueries) throws -> T) throws -> T {
        let table = table
        let counts = hasCounts
        let logger = session.logger
        return try session.run { connection in try body(Queries(connection: connection, table: table, counts: counts, logger: logger)) }
    }

    func describe(_ error: any Error) -> String { PostgresStoreError(session.location, error).message }

    /// The queries bound to one connection.
    struct Queries: NodeRowQueries {
        let connection: PostgresConnection
        let table: String
        let counts: Bool
        let logger: Logger

        var columns: String {
            "id, kind, key, value, \(counts ? "nchildren" : "(SELECT count(*) FROM \(table) AS c WHERE c.parent = n.id)"), position, parent"
        }

        func version() throws -> Int64 {
            let rows = try connection.rows(PostgresQuery(unsafeSQL: "SELECT value FROM \(table)_meta WHERE key = 'revision'"), logger)
            return Int64(try rows.first?.decode(String.self) ?? "0") ?? 0
        }

        func roots() throws -> [NodeRecord] {
            try records(PostgresQuery(unsafeSQL: "SELECT \(columns) FROM \(table) n WHERE parent IS NULL ORDER BY id LIMIT 2")).map(\.row)
        }

        func row(id: Int64) throws -> NodeRecord? {
            try records("SELECT \(unescaped: columns) FROM \(unescaped: table) n WHERE id = \(id)").first?.row
        }

        func children(of parent: Int64, after: (Int64, Int64)?, limit: Int) throws -> [NodeRecord] {
            if let after {
                return try records("""
                    SELECT \(unescaped: columns) FROM \(unescaped: table) n WHERE parent = \(parent) AND (position, id) > (\(after.0), \(after.1))
                    ORDER BY position, id LIMIT \(limit)
                    """).map(\.row)
            }
            return try records("SELECT \(unescaped: columns) FROM \(unescaped: table) n WHERE parent = \(parent) ORDER BY position, id LIMIT \(limit)")
                .map(\.row)
        }

        func keys(of parent: Int64, after: (Int64, Int64)?, limit: Int) throws -> [(Int64, Int64)] {
            let query: PostgresQuery
            if let after {
                query = """
                    SELECT position, id FROM \(unescaped: table) WHERE parent = \(parent) AND (position, id) > (\(after.0), \(after.1))
                    ORDER BY position, id LIMIT \(limit)
                    """
            } else {
                query = "SELECT position, id FROM \(unescaped: table) WHERE parent = \(parent) ORDER BY position, id LIMIT \(limit)"
            }
            return try connection.rows(query, logger).map { try $0.decode((Int64, Int64).self) }
        }

        func member(of parent: Int64, lowercasedKey: String) throws -> NodeRecord? {
            // ASCII case-insensitive, as SQLite's NOCASE: lower() on ASCII letters only would need a
            // function; translate() maps A–Z exactly and keeps every other character.
            try records("""
                SELECT \(unescaped: columns) FROM \(unescaped: table) n WHERE parent = \(parent)
                    AND translate(key, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = \(lowercasedKey)
                ORDER BY position, id LIMIT 1
                """).first?.row
        }

        func children(ofAll parents: [Int64]) throws -> [(parent: Int64, row: NodeRecord)] {
            try records("""
                SELECT \(unescaped: columns) FROM \(unescaped: table) n WHERE parent = ANY(\(parents)::int8[]) ORDER BY parent, position, id
                """).map { ($0.parent ?? -1, $0.row) }
        }

        func elements(ofAll parents: [Int64]) throws -> [(parent: Int64, kind: ValueKind, value: String?)] {
            try connection.rows("""
                SELECT parent, kind, value FROM \(unescaped: table) WHERE parent = ANY(\(parents)::int8[]) ORDER BY parent, position, id
                """, logger).map { row in
                let (parent, kind, value) = try row.decode((Int64, Int16, String?).self)
                return (parent, ValueKind(rawValue: UInt8(clamping: kind)) ?? .null, value)
            }
        }

        /// Through the trigram index on `value` (`NAME_value_trgm`, see ``PostgresTreeTable``):
        /// `ILIKE '%needle%'` on title members, scalar rows of lists and, with `values`, any member;
        /// the first `limit` in document order (up to ``orderedSearchLimit`` candidates; see there).
        func outlineCandidates(
            containing needle: String, titleKeys: [String], listKeys: [String], values: Bool, limit: Int
        ) throws -> (rows: [Int64], total: Int)? {
            var escaped = ""
            for c in needle {
                if c == "\\" || c == "%" || c == "_" { escaped.append("\\") }
                escaped.append(c)
            }
            let pattern = "%" + escaped + "%"
            // A row is shown when its parent is a list: the root array, or an array under a list key.
            let fold = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz'"
            let listed = "l.kind = 1 AND (l.parent IS NULL OR translate(l.key, \(fold)) = ANY($4::text[]))"
            let attributes = values
                ? "UNION SELECT m.parent FROM \(table) m JOIN \(table) r ON r.id = m.parent JOIN \(table) l ON l.id = r.parent WHERE m.value ILIKE $1 AND m.key IS NOT NULL AND \(listed)"
                : ""
            var bindings = PostgresBindings()
            bindings.append(pattern)
            bindings.append(titleKeys)
            bindings.append(Int64(limit))
            bindings.append(listKeys)
            let candidates = """
                c AS (
                    SELECT m.parent AS id FROM \(table) m JOIN \(table) r ON r.id = m.parent JOIN \(table) l ON l.id = r.parent
                    WHERE m.value ILIKE $1 AND translate(m.key, \(fold)) = ANY($2::text[]) AND \(listed)
                    UNION SELECT r.id FROM \(table) r JOIN \(table) l ON l.id = r.parent
                    WHERE r.value ILIKE $1 AND r.key IS NULL AND r.kind > 1 AND \(listed)
                    \(attributes))
                """
            // First by id (storage order), with the count; then, unless there are very many,
            // in document order: each candidate's (position, id) pairs from the root down,
            // compared as arrays (a walk up from every candidate, so not for 100 000 of them).
            let byID = try connection.rows(
                PostgresQuery(unsafeSQL: "WITH \(candidates) SELECT id, count(*) OVER () FROM c ORDER BY id LIMIT $3", binds: bindings), logger
            ).map { try $0.decode((Int64, Int64).self) }
            let total = Int(byID.first?.1 ?? 0)
            guard total > byID.count, total <= Self.orderedSearchLimit else { return (byID.map(\.0), total) }
            let ordered = try connection.rows(PostgresQuery(unsafeSQL: """
                WITH RECURSIVE \(candidates),
                up(candidate, parent, place) AS (
                    SELECT c.id, t.parent, ARRAY[t.position, t.id] FROM c JOIN \(table) t ON t.id = c.id
                    UNION ALL SELECT up.candidate, p.parent, ARRAY[p.position, p.id] || up.place FROM up JOIN \(table) p ON p.id = up.parent)
                SELECT candidate FROM up WHERE parent IS NULL ORDER BY place LIMIT $3
                """, binds: bindings), logger).map { try $0.decode(Int64.self) }
            return (ordered, total)
        }

        /// Up to this many candidates, a search's first hits are the first in document order;
        /// beyond, the first in storage order (shown in document order).
        static let orderedSearchLimit = 20_000

        func lineage(of id: Int64) throws -> [(id: Int64, index: Int, parentIsArray: Bool)] {
            try connection.rows("""
                WITH RECURSIVE up(id, parent, position, depth) AS (
                    SELECT id, parent, position, 0 FROM \(unescaped: table) WHERE id = \(id)
                    UNION ALL SELECT t.id, t.parent, t.position, up.depth + 1 FROM \(unescaped: table) t JOIN up ON t.id = up.parent)
                SELECT up.id, CASE WHEN up.parent IS NULL THEN 0 ELSE
                        (SELECT count(*) FROM \(unescaped: table) s WHERE s.parent = up.parent AND (s.position, s.id) < (up.position, up.id)) END,
                    coalesce(p.kind = 1, false)
                FROM up LEFT JOIN \(unescaped: table) p ON p.id = up.parent ORDER BY up.depth DESC
                """, logger).map { row in
                let (id, index, array) = try row.decode((Int64, Int64, Bool).self)
                return (id, Int(index), array)
            }
        }

        func records(_ query: PostgresQuery) throws -> [(row: NodeRecord, parent: Int64?)] {
            try connection.rows(query, logger).map { row in
                let (id, kind, key, value, count, position, parent) = try row.decode((Int64, Int16, String?, String?, Int64, Int64, Int64?).self)
                return (try NodeRecord(id: id, rawKind: Int64(kind), key: key, value: value, count: Int(count), position: position), parent)
            }
        }
    }
}
