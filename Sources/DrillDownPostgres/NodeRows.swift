import DrillDownCore

/// The rows of a tree table in memory, column by column, and the tree they make.
struct NodeRows {
    var ids: [Int64] = []
    var parents: [Int64] = []
    var positions: [Int64] = []
    var kinds: [Int16] = []
    var keys: [String?] = []
    var values: [String?] = []

    struct Invalid: Error { var message: String }

    mutating func append(id: Int64, parent: Int64?, position: Int64, kind: Int16, key: String?, value: String?) {
        ids.append(id)
        parents.append(parent ?? -1)
        positions.append(position)
        kinds.append(kind)
        keys.append(key)
        values.append(value)
    }

    /// The tree (children ordered by position, then id) and the row id of each of its nodes.
    func build() throws(Invalid) -> (TreeStore, RowMap) {
        let n = ids.count
        guard n > 0 else { throw Invalid(message: "it is empty (a tree needs a root: a row whose parent is NULL)") }
        guard n < Int(Int32.max) else { throw Invalid(message: "\(n) nodes is more than a tree holds") }
        var rowOf: [Int64: Int] = [:]
        rowOf.reserveCapacity(n)
        for i in 0 ..< n { rowOf[ids[i]] = i }
        var root = -1
        var childCounts = [Int](repeating: 0, count: n + 1)
        var parentRows = [Int](repeating: -1, count: n)
        for i in 0 ..< n {
            guard kinds[i] >= 0, Int(kinds[i]) < ValueKind.allCases.count else {
                throw Invalid(message: "node \(ids[i]) has kind \(kinds[i]), which is not a known kind")
            }
            if parents[i] < 0 {
                guard root < 0 else { throw Invalid(message: "nodes \(ids[root]) and \(ids[i]) both have no parent; a tree has one root") }
                root = i
                continue
            }
            guard let p = rowOf[parents[i]] else { throw Invalid(message: "node \(ids[i]) names parent \(parents[i]), which does not exist") }
            guard ValueKind(rawValue: UInt8(kinds[p]))!.isContainer else {
                throw Invalid(message: "node \(ids[i]) has parent \(parents[i]), a scalar, which cannot hold children")
            }
            parentRows[i] = p
            childCounts[p + 1] += 1
        }
        guard root >= 0 else { throw Invalid(message: "no root: every node has a parent") }
        var first = childCounts
        for i in 0 ..< n { first[i + 1] += first[i] }
        var fill = first
        var children = [Int](repeating: 0, count: max(0, n - 1))
        for i in 0 ..< n where parentRows[i] >= 0 {
            children[fill[parentRows[i]]] = i
            fill[parentRows[i]] += 1
        }
        for p in 0 ..< n where childCounts[p + 1] > 1 {
            children[first[p] ..< first[p + 1]].sort { (positions[$0], ids[$0]) < (positions[$1], ids[$1]) }
        }
        // Depth first into the builder, remembering the row of each node in document order.
        var builder = TreeBuilder(expectedNodes: n)
        var order: [Int] = []
        order.reserveCapacity(n)
        var stack: [(row: Int, next: Int)] = []
        func emit(_ i: Int) {
            order.append(i)
            builder.beginNode()
            if let key = keys[i] { builder.appendText(key) }
            builder.endKey()
            let kind = ValueKind(rawValue: UInt8(kinds[i]))!
            if kind.isContainer {
                builder.openContainer(kind)
                stack.append((i, first[i]))
            } else {
                builder.appendText(values[i] ?? "")
                builder.finishScalar(kind)
            }
        }
        emit(root)
        while let top = stack.last {
            if top.next < first[top.row + 1] {
                stack[stack.count - 1].next += 1
                emit(children[top.next])
            } else {
                stack.removeLast()
                builder.closeContainer()
            }
        }
        guard order.count == n else { throw Invalid(message: "\(n - order.count) of \(n) rows cannot be reached from the root (their parents form a cycle)") }
        let tree = builder.build()
        // The same depth-first walk over the built tree pairs each node id with its row.
        var map = [Int64](repeating: -1, count: tree.idCapacity)
        var k = 0
        var walk = [tree.root]
        while let node = walk.popLast() {
            map[Int(node.rawValue)] = ids[order[k]]
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
        if let row = added[node.rawValue] { return row }
        let i = Int(node.rawValue)
        guard i >= 0, i < base.count, base[i] >= 0 else { return nil }
        return base[i]
    }

    mutating func set(_ node: NodeID, _ row: Int64) { added[node.rawValue] = row }
}
