/// The rows of a tree stored as parent links (a database's tree table: id, parent, position,
/// kind, key, value), column by column with texts in one byte buffer, and the tree they make.
///
/// Every store that keeps a tree as rows (SQLite, PostgreSQL) fills one of these and builds the
/// tree here, so the checks (one root, known kinds, no children under scalars, no cycles) and
/// their messages are the same for all of them.
///
/// ```swift
/// var rows = ParentLinkedRows()
/// rows.append(id: 0, parent: nil, position: 0, kind: ValueKind.dictionary.rawValue, key: nil, value: nil)
/// rows.append(id: 1, parent: 0, position: 0, kind: ValueKind.string.rawValue, key: "name", value: "x")
/// let (tree, order) = try rows.build()
/// ```
public struct ParentLinkedRows: Sendable {
    /// Each row's id.
    public private(set) var ids: [Int64] = []
    /// Each row's parent id, -1 for the root.
    public private(set) var parents: [Int64] = []
    /// Each row's ordering key among its siblings (ties go by id).
    public private(set) var positions: [Int64] = []
    /// Each row's ``ValueKind`` raw value, as stored (checked by ``build()``).
    public private(set) var kinds: [Int64] = []
    private var keyStarts: [Int] = []
    private var valueStarts: [Int] = []
    private var bytes: [UInt8] = []

    /// Why rows do not make one tree, naming the node.
    public struct Invalid: Error, Sendable {
        /// What is wrong.
        public var message: String
    }

    /// No rows.
    public init() {}

    /// The number of rows.
    public var count: Int { ids.count }

    /// Makes room for `rows` rows.
    public mutating func reserveCapacity(_ rows: Int) {
        ids.reserveCapacity(rows)
        parents.reserveCapacity(rows)
        positions.reserveCapacity(rows)
        kinds.reserveCapacity(rows)
        keyStarts.reserveCapacity(rows + 1)
        valueStarts.reserveCapacity(rows + 1)
    }

    /// Appends a row whose key and value are bytes (UTF-8), for readers that copy straight from
    /// their driver's buffers; `nil` is empty.
    public mutating func append(
        id: Int64, parent: Int64?, position: Int64, kind: Int64, key: UnsafeBufferPointer<UInt8>?, value: UnsafeBufferPointer<UInt8>?
    ) {
        ids.append(id)
        parents.append(parent ?? -1)
        positions.append(position)
        kinds.append(kind)
        keyStarts.append(bytes.count)
        if let key { bytes.append(contentsOf: key) }
        valueStarts.append(bytes.count)
        if let value { bytes.append(contentsOf: value) }
    }

    /// Appends a row with its key and value as strings (`nil` is empty).
    public mutating func append(id: Int64, parent: Int64?, position: Int64, kind: Int64, key: String?, value: String?) {
        ids.append(id)
        parents.append(parent ?? -1)
        positions.append(position)
        kinds.append(kind)
        keyStarts.append(bytes.count)
        if let key { bytes.append(contentsOf: key.utf8) }
        valueStarts.append(bytes.count)
        if let value { bytes.append(contentsOf: value.utf8) }
    }

    private func key(_ row: Int) -> Range<Int> { keyStarts[row] ..< valueStarts[row] }
    private func value(_ row: Int, end: Int) -> Range<Int> { valueStarts[row] ..< (row + 1 < count ? keyStarts[row + 1] : end) }

    /// The tree, children ordered by position then id, and the row index of each node in
    /// depth-first (document) order, which is also the order of the tree's node ids.
    /// - Throws: ``Invalid`` when the rows are empty, have no or several roots, an unknown kind,
    ///   a child under a scalar, a parent that does not exist, or rows the root does not reach.
    /// - Complexity: O(n) for rows whose ids are 0 ..< n and already in position order; O(n log n) at worst.
    public func build() throws(Invalid) -> (tree: TreeStore, order: [Int]) {
        let n = count
        guard n > 0 else { throw Invalid(message: "it is empty (a tree needs a root: a row whose parent is NULL)") }
        guard n < Int(Int32.max) else { throw Invalid(message: "\(n) nodes is more than a tree holds") }
        // Row index of each id: the identity when ids are 0 ..< n in order (what the writers produce).
        var dense = true
        for i in 0 ..< n where ids[i] != Int64(i) {
            dense = false
            break
        }
        var rowOfID: [Int64: Int] = [:]
        if !dense {
            rowOfID.reserveCapacity(n)
            for i in 0 ..< n { rowOfID[ids[i]] = i }
        }
        func row(of id: Int64) -> Int? {
            if dense { return id >= 0 && id < Int64(n) ? Int(id) : nil }
            return rowOfID[id]
        }
        for i in 0 ..< n where kinds[i] < 0 || kinds[i] >= Int64(ValueKind.allCases.count) {
            throw Invalid(message: "node \(ids[i]) has kind \(kinds[i]), which is not a known kind (0–\(ValueKind.allCases.count - 1))")
        }
        // Children grouped by parent row (counting sort), then ordered by position.
        var root = -1
        var parentRows = [Int](repeating: -1, count: n)
        var childCounts = [Int](repeating: 0, count: n + 1)
        for i in 0 ..< n {
            if parents[i] < 0 {
                guard root < 0 else { throw Invalid(message: "nodes \(ids[root]) and \(ids[i]) both have no parent; a tree has one root") }
                root = i
                continue
            }
            guard let p = row(of: parents[i]) else {
                throw Invalid(message: "node \(ids[i]) names parent \(parents[i]), which does not exist")
            }
            let parentKind = ValueKind(rawValue: UInt8(kinds[p]))!
            guard parentKind.isContainer else {
                throw Invalid(message: "node \(ids[i]) has parent \(parents[i]), \(parentKind.withArticle) scalar, which cannot hold children")
            }
            parentRows[i] = p
            childCounts[p + 1] += 1
        }
        guard root >= 0 else { throw Invalid(message: "no root: every node has a parent, so they form a cycle") }
        var firstChild = childCounts
        for i in 0 ..< n { firstChild[i + 1] += firstChild[i] }
        var fill = firstChild
        var children = [Int](repeating: 0, count: max(0, n - 1))
        for i in 0 ..< n where parentRows[i] >= 0 {
            children[fill[parentRows[i]]] = i
            fill[parentRows[i]] += 1
        }
        for p in 0 ..< n where childCounts[p + 1] > 1 {
            let range = firstChild[p] ..< firstChild[p + 1]
            var sorted = true
            for j in range.dropFirst() where (positions[children[j]], ids[children[j]]) < (positions[children[j - 1]], ids[children[j - 1]]) {
                sorted = false
                break
            }
            if !sorted { children[range].sort { (positions[$0], ids[$0]) < (positions[$1], ids[$1]) } }
        }
        // Depth-first replay; each stack entry is a container row and its next child slot.
        var builder = TreeBuilder(expectedNodes: n, expectedTextBytes: bytes.count)
        var order: [Int] = []
        order.reserveCapacity(n)
        var stack: [(row: Int, next: Int)] = []
        let end = bytes.count
        bytes.withUnsafeBufferPointer { text in
            func emit(_ i: Int) {
                order.append(i)
                builder.beginNode()
                builder.appendText(UnsafeBufferPointer(rebasing: text[key(i)]))
                builder.endKey()
                let kind = ValueKind(rawValue: UInt8(kinds[i]))!
                if kind.isContainer {
                    builder.openContainer(kind)
                    stack.append((i, firstChild[i]))
                } else {
                    builder.appendText(UnsafeBufferPointer(rebasing: text[value(i, end: end)]))
                    builder.finishScalar(kind)
                }
            }
            emit(root)
            while let top = stack.last {
                if top.next < firstChild[top.row + 1] {
                    stack[stack.count - 1].next += 1
                    emit(children[top.next])
                } else {
                    stack.removeLast()
                    builder.closeContainer()
                }
            }
        }
        guard order.count == n else {
            throw Invalid(message: "\(n - order.count) of \(n) nodes cannot be reached from the root \(ids[root]) (their parents form a cycle)")
        }
        return (builder.build(), order)
    }
}
