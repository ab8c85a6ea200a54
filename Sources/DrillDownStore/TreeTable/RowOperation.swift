import DrillDownCore

/// One row of a tree table as a change writes it (the maintained `nchildren` is left to the triggers).
package struct NodeRow: Sendable, Equatable {
    package var id: Int64
    package var parent: Int64?
    package var position: Int64
    package var kind: ValueKind
    package var key: String?
    package var value: String?

    package static let columns = "id, parent, position, kind, key, value"

    package init(id: Int64, parent: Int64?, position: Int64, kind: ValueKind, key: String?, value: String?) {
        self.id = id
        self.parent = parent
        self.position = position
        self.kind = kind
        self.key = key
        self.value = value
    }
}

/// A write of rows of `nodes` that can be taken back: what a step of ``TreeTableStore`` records
/// for undo and redo instead of copies of the tree.
package enum RowOperation: Sendable {
    /// Inserts rows, parents before children.
    case insert([NodeRow])
    /// Deletes rows (a node and its subtree).
    case delete([NodeRow])
    /// Rewrites one row.
    case update(before: NodeRow, after: NodeRow)

    /// The operation that takes this one back.
    package var inverse: RowOperation {
        switch self {
        case .insert(let rows): .delete(rows)
        case .delete(let rows): .insert(rows)
        case .update(let before, let after): .update(before: after, after: before)
        }
    }

    /// Whether it adds, removes or moves nodes (rather than rewriting a title or a value in place).
    package var isStructural: Bool {
        switch self {
        case .insert, .delete: true
        case .update(let before, let after): before.parent != after.parent || before.position != after.position
        }
    }

    /// Rows changed by another writer since this store wrote them.
    package struct Conflict: Error, CustomStringConvertible {
        package var message: String
        package var description: String { message }

        package init(message: String) { self.message = message }
    }
}
