import DrillDownCore

/// What changed between two versions of a document tree, as edits addressed by store paths in
/// the old version (every object member and array element counts), for patching the old text.
///
/// Children are aligned by a hash of each subtree: equal leading and trailing children are
/// skipped, then the rest is walked with a bounded lookahead that recognizes inserted and
/// removed runs; two children left facing each other are compared member by member. Any
/// alignment gives a correct patch; a good one gives a small patch.
///
/// When both trees are versions of one document, only the nodes edits wrote between them and
/// their ancestors are looked at (``TreeStore/changedSubtrees(since:)``): any other node is the
/// same subtree in both, so it is skipped, and it enters a hash as its id alone.
///
/// - Complexity: O(width of the changed containers + size of the subtrees edits wrote) for two
///   versions of one document; otherwise O(n) in the size of the changed containers' subtrees
///   (hashing); plus O(width × lookahead) where children were inserted or removed.
struct TreeDiff {
    /// One edit of the old tree.
    enum Edit: Equatable {
        /// The node at `path` becomes the new tree's node `new` (a scalar's value, or a whole value of another kind); a member keeps its key.
        case replace(path: [Int], new: NodeID)
        /// The member at `path` gets the key of the new tree's member `new`.
        case rekey(path: [Int], new: NodeID)
        /// The children `range` of the container at `path` are replaced by the new tree's nodes `new`.
        case splice(path: [Int], range: Range<Int>, new: [NodeID])
    }

    let old: TreeStore
    let new: TreeStore
    /// The nodes whose subtrees may differ (`nil`: any may).
    let changed: Set<NodeID>?
    private(set) var edits: [Edit] = []
    /// The nodes compared or hashed node by node (for tests of the cost).
    private(set) var visited = 0
    /// How far the alignment looks ahead for an inserted or removed run.
    static let lookahead = 48

    /// The edits that turn `old` into `new`, in document order.
    static func edits(from old: TreeStore, to new: TreeStore) -> [Edit] { diff(from: old, to: new).edits }

    /// The comparison of `old` with `new`: its edits and what it cost; `whole` looks at every
    /// node even when the trees are versions of one document.
    static func diff(from old: TreeStore, to new: TreeStore, whole: Bool = false) -> TreeDiff {
        var diff = TreeDiff(old: old, new: new, changed: whole ? nil : new.changedSubtrees(since: old))
        var path: [Int] = []
        diff.compare(old.root, new.root, path: &path)
        return diff
    }

    /// Whether the node is the same subtree in both trees (known without looking at it).
    private func isUnchanged(_ id: NodeID) -> Bool {
        guard let changed else { return false }
        return !changed.contains(id)
    }

    private mutating func compare(_ a: NodeID, _ b: NodeID, path: inout [Int]) {
        if a == b, isUnchanged(a) { return }
        visited += 1
        let kind = old.kind(of: a)
        guard kind == new.kind(of: b) else {
            edits.append(.replace(path: path, new: b))
            return
        }
        guard kind.isContainer else {
            if old.valueBytes(of: a) != new.valueBytes(of: b) { edits.append(.replace(path: path, new: b)) }
            return
        }
        let ca = old.children(of: a), cb = new.children(of: b)
        let keyed = kind == .object
        // A few members with the same keys on both sides (`{"Rows": […]}`): pair them without
        // hashing whole subtrees; each pair's own comparison stops at equal children.
        if ca.count == cb.count, ca.count <= 8,
            !keyed || ca.indices.allSatisfy({ old.keyBytes(of: ca[$0]) == new.keyBytes(of: cb[$0]) })
        {
            for i in ca.indices {
                path.append(i)
                compare(ca[i], cb[i], path: &path)
                path.removeLast()
            }
            return
        }
        let ha = ca.map { hash(old, $0, keyed: keyed) }
        let hb = cb.map { hash(new, $0, keyed: keyed) }
        var i = 0, j = 0
        var endA = ha.count, endB = hb.count
        while i < endA, j < endB, ha[i] == hb[j] { i += 1; j += 1 }
        while endA > i, endB > j, ha[endA - 1] == hb[endB - 1] { endA -= 1; endB -= 1 }
        var pendingStart: Int?
        var pendingNew: [NodeID] = []
        func flush(_ edits: inout [Edit], upTo end: Int) {
            if let start = pendingStart { edits.append(.splice(path: path, range: start ..< end, new: pendingNew)) }
            pendingStart = nil
            pendingNew = []
        }
        while i < endA || j < endB {
            if i < endA, j < endB, ha[i] == hb[j] {
                flush(&edits, upTo: i)
                i += 1; j += 1
                continue
            }
            if i == endA || j == endB {
                if pendingStart == nil { pendingStart = i }
                pendingNew.append(contentsOf: cb[cb.startIndex + j ..< cb.startIndex + endB])
                i = endA; j = endB
                break
            }
            var step = 0
            var inserted = false
            for k in 1 ... Self.lookahead {
                if j + k < endB, ha[i] == hb[j + k] { step = k; inserted = true; break }
                if i + k < endA, ha[i + k] == hb[j] { step = k; break }
            }
            if step > 0 {
                if pendingStart == nil { pendingStart = i }
                if inserted {
                    pendingNew.append(contentsOf: cb[cb.startIndex + j ..< cb.startIndex + j + step])
                    j += step
                } else {
                    i += step
                }
                continue
            }
            // Two different children face each other: the same member changed.
            flush(&edits, upTo: i)
            let x = ca[ca.startIndex + i], y = cb[cb.startIndex + j]
            path.append(i)
            if keyed, old.keyBytes(of: x) != new.keyBytes(of: y) { edits.append(.rekey(path: path, new: y)) }
            compare(x, y, path: &path)
            path.removeLast()
            i += 1; j += 1
        }
        flush(&edits, upTo: i)
    }

    /// A 64-bit hash of the subtree at `id` (its key too when `keyed`). An unchanged node (the
    /// same subtree in both trees) is hashed as its id, without looking inside.
    mutating func hash(_ tree: TreeStore, _ id: NodeID, keyed: Bool) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        @inline(__always) func mix(_ byte: UInt8) { h = (h ^ UInt64(byte)) &* 0x100_0000_01b3 }
        @inline(__always) func mix(_ bytes: some ByteText) {
            for b in bytes { mix(b) }
            mix(0xFF)
        }
        var stack: [(NodeID, Bool)] = [(id, keyed)]
        while let (n, withKey) = stack.popLast() {
            if isUnchanged(n) {
                mix(0xFD)
                for shift in stride(from: 0, to: 32, by: 8) { mix(UInt8(truncatingIfNeeded: n.rawValue >> Int32(shift))) }
                continue
            }
            visited += 1
            let kind = tree.kind(of: n)
            mix(kind.rawValue &+ 1)
            if withKey { mix(tree.keyBytes(of: n)) }
            if kind.isContainer {
                let kids = tree.children(of: n)
                mix(UInt8(truncatingIfNeeded: kids.count))
                mix(UInt8(truncatingIfNeeded: kids.count >> 8))
                for c in kids.reversed() { stack.append((c, kind == .object)) }
                // Close marker so that nesting differences change the hash.
                mix(0xFE)
            } else {
                mix(tree.valueBytes(of: n))
            }
        }
        return h
    }
}

extension TreeStore {
    /// The subtree at `id` as a tree of its own (its key dropped).
    /// - Complexity: O(size of the subtree)
    func subtree(at id: NodeID) -> TreeStore {
        var b = TreeBuilder()
        enum Item { case node(NodeID, keyed: Bool), close }
        var stack: [Item] = [.node(id, keyed: false)]
        while let item = stack.popLast() {
            switch item {
            case .close: b.closeContainer()
            case .node(let n, let keyed):
                b.beginNode()
                if keyed { for byte in keyBytes(of: n) { b.appendText(byte) } }
                b.endKey()
                let k = kind(of: n)
                guard k.isContainer else {
                    for byte in valueBytes(of: n) { b.appendText(byte) }
                    b.finishScalar(k)
                    continue
                }
                b.openContainer(k)
                stack.append(.close)
                for c in children(of: n).reversed() { stack.append(.node(c, keyed: k == .object)) }
            }
        }
        return b.build()
    }

    /// The node at a store path, or `nil`.
    func node(atStorePath path: [Int]) -> NodeID? {
        var n = root
        for i in path {
            let kids = children(of: n)
            guard i >= 0, i < kids.count else { return nil }
            n = kids[kids.startIndex + i]
        }
        return n
    }
}
