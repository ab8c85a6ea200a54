import DrillDownCore

/// The rows of a tree table in memory (``ParentLinkedRows``) and the tree they make, with the row
/// id of each node.
struct NodeRows {
    var rows = ParentLinkedRows()

    mutating func append(id: Int64, parent: Int64?, position: Int64, kind: Int16, key: String?, value: String?) {
        rows.append(id: id, parent: parent, position: position, kind: Int64(kind), key: key, value: value)
    }

    /// The tree (children ordered by position, then id) and the row id of each of its nodes.
    func build() throws(ParentLinkedRows.Invalid) -> (TreeStore, RowMap) {
        let (tree, order) = try rows.build()
        // The same depth-first walk over the built tree pairs each node id with its row.
        var map = [Int64](repeating: -1, count: tree.idCapacity)
        var k = 0
        var walk = [tree.root]
        while let node = walk.popLast() {
            map[Int(node.rawValue)] = rows.ids[order[k]]
            k += 1
            let kids = tree.children(of: node)
            for j in stride(from: kids.count - 1, through: 0, by: -1) { walk.append(kids[j]) }
        }
        return (tree, RowMap(base: map))
    }
}

/// The row id of each node of a tree read from a tree table, and of nodes added since.
public struct RowMap: Sendable {
    var base: [Int64]
    var added: [Int32: Int64] = [:]

    /// The row of `node`, if it has one.
    public subscript(node: NodeID) -> Int64? {
        if let row = added[node.rawValue] { return row >= 0 ? row : nil }
        let i = Int(node.rawValue)
        guard i >= 0, i < base.count, base[i] >= 0 else { return nil }
        return base[i]
    }

    mutating func set(_ node: NodeID, _ row: Int64) { added[node.rawValue] = row }

    /// Forgets the row of `node` (it was deleted): putting the node back (an undo) inserts it anew.
    mutating func remove(_ node: NodeID) { added[node.rawValue] = -1 }
}
