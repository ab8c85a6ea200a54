import DrillDownCore
import GRDB

/// One row of `nodes` as a change writes it (the maintained `nchildren` is left to the triggers).
struct NodeRow: Sendable, Equatable {
    var id: Int64
    var parent: Int64?
    var position: Int64
    var kind: ValueKind
    var key: String?
    var value: String?

    static let columns = "id, parent, position, kind, key, value"

    init(id: Int64, parent: Int64?, position: Int64, kind: ValueKind, key: String?, value: String?) {
        self.id = id
        self.parent = parent
        self.position = position
        self.kind = kind
        self.key = key
        self.value = value
    }

    init(_ row: GRDB.Row) {
        id = row[0]
        parent = row[1]
        position = row[2]
        kind = ValueKind(rawValue: UInt8(clamping: row[3] as Int64)) ?? .null
        key = row[4]
        value = row[5]
    }

    /// The row with id `id`, if there is one.
    static func fetch(_ db: Database, id: Int64) throws -> NodeRow? {
        try GRDB.Row.fetchOne(db, sql: "SELECT \(columns) FROM nodes WHERE id = ?", arguments: [id]).map(NodeRow.init)
    }
}

/// A write of rows of `nodes` that can be taken back: what a step of ``TreeTableStore`` records
/// for undo and redo instead of copies of the tree.
enum RowOperation: Sendable {
    /// Inserts rows, parents before children.
    case insert([NodeRow])
    /// Deletes rows (a node and its subtree).
    case delete([NodeRow])
    /// Rewrites one row.
    case update(before: NodeRow, after: NodeRow)

    /// The operation that takes this one back.
    var inverse: RowOperation {
        switch self {
        case .insert(let rows): .delete(rows)
        case .delete(let rows): .insert(rows)
        case .update(let before, let after): .update(before: after, after: before)
        }
    }

    /// Whether it adds, removes or moves nodes (rather than rewriting a title or a value in place).
    var isStructural: Bool {
        switch self {
        case .insert, .delete: true
        case .update(let before, let after): before.parent != after.parent || before.position != after.position
        }
    }

    /// Runs the operation in `db`'s open transaction. With `checked` (undo and redo), the rows
    /// must be as this store left them: a row another writer changed, removed or reused is never
    /// overwritten; the operation throws ``Conflict`` instead.
    func run(_ db: Database, checked: Bool) throws {
        switch self {
        case .insert(let rows):
            let statement = try db.makeStatement(sql: "INSERT INTO nodes(\(NodeRow.columns)) VALUES (?, ?, ?, ?, ?, ?)")
            for row in rows {
                if checked {
                    if try NodeRow.fetch(db, id: row.id) != nil { throw Conflict(message: "node \(row.id) was added again by another writer") }
                    if let parent = row.parent, try NodeRow.fetch(db, id: parent) == nil {
                        throw Conflict(message: "its parent (node \(parent)) was deleted by another writer")
                    }
                }
                try statement.execute(arguments: [row.id, row.parent, row.position, Int64(row.kind.rawValue), row.key, row.value])
            }
        case .delete(let rows):
            if checked {
                for row in rows where try NodeRow.fetch(db, id: row.id) != row {
                    throw Conflict(message: "node \(row.id) was changed by another writer")
                }
                let ids = rows.map { String($0.id) }.joined(separator: ",")
                let inside = Set(rows.map(\.id))
                let expected = rows.filter { $0.parent.map(inside.contains) ?? false }.count
                let found = try Int.fetchOne(db, sql: "SELECT count(*) FROM nodes WHERE parent IN (\(ids))") ?? 0
                if found != expected { throw Conflict(message: "another writer added nodes under node \(rows[0].id)") }
            }
            for chunk in stride(from: 0, to: rows.count, by: 500) {
                let ids = rows[chunk ..< min(rows.count, chunk + 500)].map { String($0.id) }.joined(separator: ",")
                try db.execute(sql: "DELETE FROM nodes WHERE id IN (\(ids))")
            }
        case .update(let before, let after):
            if checked, try NodeRow.fetch(db, id: before.id) != before {
                throw Conflict(message: "node \(before.id) was changed by another writer")
            }
            try db.execute(
                sql: "UPDATE nodes SET parent = ?, position = ?, kind = ?, key = ?, value = ? WHERE id = ?",
                arguments: [after.parent, after.position, Int64(after.kind.rawValue), after.key, after.value, after.id])
        }
    }

    /// Rows changed by another writer since this store wrote them.
    struct Conflict: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
