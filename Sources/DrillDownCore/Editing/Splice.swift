/// The one primitive every ``Change`` is made of: replace a range of one container's children
/// by fragments.
///
/// A splice addresses its container by its store node id, which means the same node in every
/// version of the document (ids are stable across edits), whichever ``ReadingMode`` it is read
/// with; a change finds the container once, as a node, instead of turning it into a store path
/// that the splice walks down again. Undo does not need an inverse: every tree is an immutable
/// snapshot, so a step keeps the trees before and after it.
struct Splice: Sendable {
    /// The container whose children change (a node of the tree the splice is applied to).
    var container: NodeID
    /// The positions of the children replaced.
    var range: Range<Int>
    /// What goes in their place (keys are dropped inside an array).
    var fragments: [Fragment]
}

extension TreeStore {
    /// The node at a store path (every member and element counts), or `nil`.
    /// - Complexity: O(depth)
    func storeNode(at path: TreePath) -> NodeID? {
        var n = root
        for i in path.indices {
            guard i >= 0, i < childCount(of: n) else { return nil }
            n = children(of: n)[i]
        }
        return n
    }

    /// The store path of `id`.
    /// - Complexity: O(depth)
    func storePath(of id: NodeID) -> TreePath {
        var indices: [Int] = []
        var n = id
        while let p = parent(of: n) {
            indices.append(position(of: n))
            n = p
        }
        return TreePath(indices.reversed())
    }

    /// This tree with `splice` applied: a new tree that shares everything but the records of
    /// the container and the inserted nodes with this one, which stays valid and unchanged.
    ///
    /// Inserted fragments of their own get new ids (each of their levels one contiguous run);
    /// a fragment that refers to a subtree this same edit took away (a rename, a move) is
    /// relinked, keeping its ids.
    /// - Complexity: O(runs of the container's level + the inserted nodes
    ///   + the removed nodes that are not put back), never O(n).
    func applying(_ splice: Splice) -> TreeStore {
        let target = splice.container
        let kids = children(of: target)
        precondition(kind(of: target).isContainer && splice.range.lowerBound >= 0 && splice.range.upperBound <= kids.count)
        let removed = splice.range.map { kids[$0] }
        var editor = OverlayEditor(self)
        let targetIsObject = kind(of: target) == .object
        let generation = overlay?.generation ?? 0
        var added: [Int32] = []
        added.reserveCapacity(splice.fragments.count)
        // A change relinks at most a few subtrees: a list, not a hashed set (an allocation).
        var relinked: [NodeID] = []
        for f in splice.fragments {
            let key = targetIsObject ? (f.key ?? []) : []
            if let (origin, node) = f.subtree, sharesBase(with: origin), !relinked.contains(node) {
                // Taken from this tree: free when this splice removes it. Taken from a tree one or
                // two splices back (a move: its removal, then maybe the list it goes into): free
                // when no longer attached, since those splices changed nothing inside it.
                let age = generation - (origin.overlay?.generation ?? 0)
                let free = age == 0 ? removed.contains(node) : age <= Self.relinkAge && !isAttached(node)
                if free {
                    var r = editor.current(node)
                    r.parent = target.rawValue
                    r.key = key
                    editor.write(node.rawValue, r)
                    relinked.append(node)
                    added.append(node.rawValue)
                    if age > 0 {
                        // Removed by a splice before (a move): put back uncounted if it left uncounted.
                        if let i = editor.unsized.lastIndex(of: node.rawValue) {
                            editor.unsized.remove(at: i)
                        } else {
                            editor.count += subtreeSize(node) ?? 0
                        }
                    }
                    continue
                }
            }
            added.append(editor.graft(f, parent: target.rawValue, key: key))
        }
        for id in removed where !relinked.contains(id) {
            if let size = subtreeSize(id, limit: Self.countedRemoval) { editor.count -= size } else { editor.unsized.append(id.rawValue) }
        }
        var r = editor.current(target)
        r.children = kids.replacing(splice.range, with: added)
        editor.write(target.rawValue, r)
        return editor.build()
    }

    /// How many splices back a fragment's tree may be for its subtree to be relinked rather than
    /// copied (a move is its removal, maybe a new children list, then its insert).
    static let relinkAge = 2

    /// Whether `other` is this tree or another version of the same document read once (an edit
    /// of it, an undo, a redo), so its ids mean the same nodes; a tree read again from the file is not.
    /// - Complexity: O(1)
    public func sharesBase(with other: TreeStore) -> Bool {
        if base === other.base { return true }
        return kinds.withUnsafeBufferPointer { a in other.kinds.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
            && kinds.count == other.kinds.count
    }

    /// Whether `id` is reachable from the root.
    /// - Complexity: O(depth × log runs)
    func isAttached(_ id: NodeID) -> Bool {
        var n = id
        while let p = parent(of: n) {
            guard children(of: p).position(of: n) != nil else { return false }
            n = p
        }
        return n == root
    }

    /// The most nodes a change counts in a subtree it removes; a larger one is left uncounted
    /// (``count`` counts the tree when next asked), so a change never costs the size of what it removes.
    static let countedRemoval = 64

    /// The number of nodes in the subtree at `id`, or `nil` when it has more than `limit`.
    /// - Complexity: O(min(size of the subtree, limit))
    func subtreeSize(_ id: NodeID, limit: Int = .max) -> Int? {
        var total = 0
        var stack = [id]
        stack.reserveCapacity(16)
        while let n = stack.popLast() {
            total += 1
            // Every node on the stack will be counted: stop before pushing a wide level's children.
            let kids = children(of: n)
            if total + stack.count + kids.count > limit { return nil }
            for c in kids { stack.append(c) }
        }
        return total
    }
}

extension OverlayEditor {
    /// Copies the subtree at `node` of `source` in as new nodes under `parent`, the subtree's
    /// root keyed by `key`; each copied level gets one run of consecutive ids. Returns the root's id.
    /// - Complexity: O(size of the subtree)
    mutating func graft(_ source: TreeStore, _ node: NodeID, parent: Int32, key: [UInt8]) -> Int32 {
        let rootID = capacity
        capacity += 1
        graft(source, node, as: rootID, parent: parent, key: key)
        return rootID
    }

    /// Writes `fragment` in as new nodes under `parent`, its root keyed by `key`; each level of a
    /// new container gets one run of consecutive ids. Returns the root's id.
    /// - Complexity: O(size of the fragment)
    mutating func graft(_ fragment: Fragment, parent: Int32, key: [UInt8]) -> Int32 {
        let rootID = capacity
        capacity += 1
        place(fragment, as: rootID, parent: parent, key: key)
        return rootID
    }

    /// Writes `fragment` as the node `id` (already allocated) under `parent`.
    mutating func place(_ fragment: Fragment, as id: Int32, parent: Int32, key: [UInt8]) {
        switch fragment.content {
        case .subtree(let origin, let node):
            graft(origin, node, as: id, parent: parent, key: key)
        case .scalar(let kind, let text):
            write(id, NodeRecord(kind: kind.rawValue, parent: parent, key: key, value: text, children: .empty))
            count += 1
        case .container(let kind, let members):
            let first = capacity
            capacity += Int32(members.count)
            write(id, NodeRecord(kind: kind.rawValue, parent: parent, key: key, value: [], children: NodeRange(first, capacity)))
            count += 1
            let keyed = kind == .object
            for (i, m) in members.enumerated() {
                place(m, as: first + Int32(i), parent: id, key: keyed ? (m.key ?? []) : [])
            }
        }
    }

    /// Copies the subtree at `node` of `source` in as the node `id` (already allocated) and new nodes below it.
    mutating func graft(_ source: TreeStore, _ node: NodeID, as rootID: Int32, parent: Int32, key: [UInt8]) {
        // Breadth first: a node's id is known before its children's block is allocated.
        var queue: [(from: NodeID, id: Int32, parent: Int32, key: [UInt8])] = [(node, rootID, parent, key)]
        var head = 0
        while head < queue.count {
            let (from, id, up, k) = queue[head]
            head += 1
            let kind = source.kind(of: from)
            var r = NodeRecord(kind: kind.rawValue, parent: up, key: k, value: [], children: .empty)
            if kind.isContainer {
                let kids = source.children(of: from)
                let first = capacity
                capacity += Int32(kids.count)
                r.children = NodeRange(first, capacity)
                let keyed = kind == .object
                for (i, c) in kids.enumerated() {
                    queue.append((c, first + Int32(i), id, keyed ? Array(source.keyBytes(of: c)) : []))
                }
            } else {
                r.value = Array(source.valueBytes(of: from))
            }
            write(id, r)
            count += 1
        }
    }
}
