import DrillDownCore

/// The reads and writes a ``TreeTableEditor`` needs inside an open write transaction of a tree
/// table: SQLite (``SQLiteNodeRows/Writer``) or PostgreSQL (in DrillDownPostgres). The editor
/// keeps the rules (the same as ``EditableDocument``'s); a writer only runs its queries.
package protocol NodeRowWriter {
    /// The stored row with id `id`, if there is one.
    func row(_ id: Int64) throws -> NodeRow?
    /// A node and its descendants, parents first.
    func subtree(of id: Int64) throws -> [NodeRow]
    /// `n` fresh consecutive ids, never handed out before.
    func allocate(_ n: Int) throws -> Int64
    /// The position of child `index` of `parent` (or of its last child with `last`), not counting row `excluding`.
    func position(ofChild index: Int, last: Bool, of parent: Int64, excluding: Int64) throws -> Int64?
    /// The children of `parent` in order, without row `excluding`.
    func children(of parent: Int64, excluding: Int64) throws -> [NodeRow]
    /// `(row, key)` of the members whose key is one of `lowercasedKeys` (ASCII case ignored) of
    /// the first 100 children of `list`, in order.
    func memberKeys(ofFirstChildrenOf list: Int64, lowercasedKeys: [String]) throws -> [(Int64, String)]
    /// Whether `parent` has a child keyed exactly `key` other than row `other`.
    func hasMember(_ parent: Int64, key: String, other: Int64) throws -> Bool
    /// The first child of `parent` keyed exactly `key`.
    func member(of parent: Int64, exactKey key: String) throws -> NodeRecord?
    /// The number of children of `parent` before `(position, id)`.
    func count(of parent: Int64, before: (Int64, Int64)) throws -> Int
    /// Runs `operation`. With `checked` (undo and redo) the rows must be as this store left
    /// them: a row another writer changed, removed or reused throws ``RowOperation/Conflict``.
    func run(_ operation: RowOperation, checked: Bool) throws
}

extension NodeRowWriter {
    /// Checks that `operation`'s rows are as this store left them (undo and redo), with the reads every writer has.
    package func check(_ operation: RowOperation, childCount: ([Int64]) throws -> Int) throws {
        switch operation {
        case .insert(let rows):
            for row in rows {
                if try self.row(row.id) != nil { throw RowOperation.Conflict(message: "node \(row.id) was added again by another writer") }
                if let parent = row.parent, !rows.contains(where: { $0.id == parent }), try self.row(parent) == nil {
                    throw RowOperation.Conflict(message: "its parent (node \(parent)) was deleted by another writer")
                }
            }
        case .delete(let rows):
            for row in rows where try self.row(row.id) != row {
                throw RowOperation.Conflict(message: "node \(row.id) was changed by another writer")
            }
            let inside = Set(rows.map(\.id))
            let expected = rows.filter { $0.parent.map(inside.contains) ?? false }.count
            if try childCount(rows.map(\.id)) != expected { throw RowOperation.Conflict(message: "another writer added nodes under node \(rows[0].id)") }
        case .update(let before, _):
            if try row(before.id) != before { throw RowOperation.Conflict(message: "node \(before.id) was changed by another writer") }
        }
    }
}
