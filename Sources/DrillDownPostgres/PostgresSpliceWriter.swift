import DrillDownCore
import Logging
import PostgresNIO

/// Writes the splices of one step into the tree table, inside the step's transaction, touching
/// only their rows.
///
/// For each ``TreeEdit``: the container row and every removed row are locked with
/// `SELECT … FOR UPDATE` and must still exist (else another instance deleted or replaced them:
/// a ``EditError/Reason/conflict``); each added child either is a row already (a subtree put
/// back where a move or rename took it from: one `UPDATE` of parent, key and position) or is
/// inserted with its subtree (ids from the table's sequence, one multi-row INSERT). New rows
/// take positions between their neighbours as the table holds them now; an append goes after
/// the last child *now*, so appends by several instances all land at the end. Removed rows not
/// put back are deleted with their subtrees when the step ends.
struct PostgresSpliceWriter {
    let connection: PostgresConnection
    let table: String
    let logger: Logger
    /// Row ids of the step's nodes, extended with every row inserted.
    var rows: RowMap
    var removed: Set<Int64> = []
    var relinked: Set<Int64> = []
    /// The node of each removed row, so the map forgets the rows the step deletes.
    var removedNodes: [Int64: NodeID] = [:]

    static let gap = PostgresTreeTable.positionGap

    init(connection: PostgresConnection, table: String, logger: Logger, rows: RowMap) {
        self.connection = connection
        self.table = table
        self.logger = logger
        self.rows = rows
    }

    /// Takes the next revision: the `UPDATE` locks the table's revision row, so writers of the
    /// table commit one after another and revisions have no gaps.
    mutating func begin() throws -> Int64 {
        let result = try connection.rows(
            PostgresQuery(unsafeSQL: "UPDATE \(table)_meta SET value = (value::bigint + 1)::text WHERE key = 'revision' RETURNING value"), logger)
        guard let text = try result.first?.decode(String.self), let revision = Int64(text) else {
            throw EditError("table '\(table)' has no revision row; it is not a DrillDown tree table")
        }
        return revision
    }

    mutating func write(_ edit: TreeEdit) throws {
        guard let container = rows[edit.container] else { throw Self.conflict("the place of this change has no row") }
        try lock([container], what: "the row this change is in")
        let gone = edit.removed.compactMap { rows[$0] }
        guard gone.count == edit.range.count else { throw Self.conflict("a row this change replaces has no row") }
        try lock(gone, what: "a row this change replaces")
        removed.formUnion(gone)
        for (node, row) in zip(edit.removed, gone) { removedNodes[row] = node }
        let added = edit.added
        guard !added.isEmpty else { return }
        let left: Int64? = edit.range.lowerBound > 0 ? rows[edit.after.children(of: edit.container)[edit.range.lowerBound - 1]] : nil
        let positions = try places(added.count, in: container, after: edit.appends ? nil : left, appending: edit.appends, skipping: gone)
        let keyed = edit.after.kind(of: edit.container) == .object
        for (k, node) in added.enumerated() {
            let key: String? = keyed ? String(decoding: edit.after.keyBytes(of: node), as: UTF8.self) : nil
            if let row = rows[node] {
                try connection.execute(
                    "UPDATE \(unescaped: table) SET parent = \(container), key = \(key), position = \(positions[k]) WHERE id = \(row)", logger)
                removed.remove(row)
                relinked.insert(row)
            } else {
                try insert(node, of: edit.after, parent: container, key: key, position: positions[k])
            }
        }
    }

    /// Deletes what the step removed and did not put back, then announces the revision (NOTIFY is
    /// delivered when the transaction commits, never for a rolled-back one).
    mutating func finish(revision: Int64, channel: String) throws {
        let doomed = Array(removed)
        for row in doomed { if let node = removedNodes[row] { rows.remove(node) } }
        if !doomed.isEmpty {
            try connection.execute("""
                WITH RECURSIVE doomed(id) AS (
                    SELECT unnest(\(doomed)::int8[])
                    UNION ALL SELECT t.id FROM \(unescaped: table) t JOIN doomed d ON t.parent = d.id)
                DELETE FROM \(unescaped: table) t USING doomed d WHERE t.id = d.id
                """, logger)
        }
        try connection.execute("SELECT pg_notify(\(channel), \(String(revision)))", logger)
    }

    /// Locks `ids` for the rest of the transaction; fails when one no longer exists.
    func lock(_ ids: [Int64], what: String) throws {
        guard !ids.isEmpty else { return }
        let found = try connection.rows("SELECT id FROM \(unescaped: table) WHERE id = ANY(\(ids)::int8[]) FOR UPDATE", logger)
        guard found.count == Set(ids).count else {
            throw Self.conflict("\(what) was deleted or replaced by another writer meanwhile")
        }
    }

    static func conflict(_ what: String) -> EditError {
        EditError("\(what); nothing was changed (reload to see the data as it is now)", reason: .conflict)
    }

    /// Positions for `count` new children of `parent`: after `left` (a row) and before the next
    /// row that stays, or after the last child when appending. Renumbers the level once when the
    /// gap between the neighbours is used up.
    func places(_ count: Int, in parent: Int64, after left: Int64?, appending: Bool, skipping gone: [Int64]) throws -> [Int64] {
        let n = Int64(count)
        if appending {
            let last = try connection.rows("SELECT max(position) FROM \(unescaped: table) WHERE parent = \(parent)", logger)
            let base = try last.first?.decode(Int64?.self) ?? nil
            return (1 ... n).map { (base ?? -Self.gap) + $0 * Self.gap }
        }
        for attempt in 0 ..< 2 {
            var low: Int64?
            var query: PostgresQuery = "SELECT position FROM \(unescaped: table) WHERE parent = \(parent) AND id <> ALL(\(gone)::int8[]) ORDER BY position, id LIMIT 1"
            if let left {
                guard let found = try connection.rows("SELECT position FROM \(unescaped: table) WHERE id = \(left)", logger).first else {
                    throw Self.conflict("the row before this place was deleted by another writer meanwhile")
                }
                let lp = try found.decode(Int64.self)
                low = lp
                query = """
                    SELECT position FROM \(unescaped: table) WHERE parent = \(parent) AND id <> ALL(\(gone)::int8[])
                        AND (position, id) > (\(lp), \(left)) ORDER BY position, id LIMIT 1
                    """
            }
            let high = try connection.rows(query, logger).first.map { try $0.decode(Int64.self) }
            switch (low, high) {
            case (nil, nil): return (0 ..< n).map { $0 * Self.gap }
            case (let l?, nil): return (1 ... n).map { l + $0 * Self.gap }
            case (nil, let h?): return (0 ..< n).map { h - (n - $0) * Self.gap }
            case (let l?, let h?):
                if h - l > n {
                    let step = (h - l) / (n + 1)
                    return (1 ... n).map { l + $0 * step }
                }
                guard attempt == 0 else { break }
                try connection.execute("""
                    UPDATE \(unescaped: table) t SET position = r.n * \(Self.gap)
                    FROM (SELECT id, row_number() OVER (ORDER BY position, id) AS n FROM \(unescaped: table) WHERE parent = \(parent)) r
                    WHERE t.id = r.id
                    """, logger)
            }
        }
        throw EditError("could not find room between two rows")
    }

    /// Inserts the subtree at `node` of `tree` as new rows (breadth first, one INSERT).
    mutating func insert(_ node: NodeID, of tree: TreeStore, parent: Int64, key: String?, position: Int64) throws {
        var nodes: [(node: NodeID, parent: Int, position: Int64, key: String?)] = [(node, -1, position, key)]
        var head = 0
        while head < nodes.count {
            let item = nodes[head]
            let kind = tree.kind(of: item.node)
            if kind.isContainer {
                for (i, child) in tree.children(of: item.node).enumerated() {
                    let childKey: String? = kind == .object ? String(decoding: tree.keyBytes(of: child), as: UTF8.self) : nil
                    nodes.append((child, head, Int64(i) * Self.gap, childKey))
                }
            }
            head += 1
        }
        let ids = try connection.rows("SELECT nextval('\(unescaped: table)_ids') FROM generate_series(1, \(nodes.count))", logger)
            .map { try $0.decode(Int64.self) }
        var batch = RowBatch()
        for (i, item) in nodes.enumerated() {
            let kind = tree.kind(of: item.node)
            let value: String? = kind.isContainer ? nil : String(decoding: tree.valueBytes(of: item.node), as: UTF8.self)
            batch.append(
                id: ids[i], parent: item.parent < 0 ? parent : ids[item.parent], position: item.position, kind: Int16(kind.rawValue),
                key: item.key, value: value)
            rows.set(item.node, ids[i])
        }
        try batch.insert(into: table, connection, logger)
    }
}
