/// A detached piece of a document: one value (a scalar or a whole subtree) and the key it has
/// in its parent object, if any.
///
/// Fragments are what ``Splice``s put into a container. A fragment is either a small tree of its
/// own (a new node) or a reference to a subtree of the document being edited (``fragment(at:)``,
/// O(1)): a splice that puts such a subtree back where the same edit took it from (a rename, a
/// move) relinks its nodes instead of copying them.
struct Fragment: Sendable {
    /// The key the value has in its parent object; `nil` for an array element.
    var key: [UInt8]?
    /// The tree that holds the value: the fragment's own, or the document it refers to.
    var origin: TreeStore
    /// The value's node in ``origin`` (its root for a fragment of its own).
    var node: NodeID

    /// The value as a tree whose root is the value itself (a copy for a fragment that refers to a subtree).
    /// - Complexity: O(1) for a fragment of its own, O(size of the subtree) otherwise.
    var tree: TreeStore {
        if node == origin.root { return origin }
        var b = TreeBuilder(expectedNodes: 16)
        b.append(origin, node, key: [])
        return b.build()
    }

    /// Creates a fragment from a value tree and a key.
    init(key: [UInt8]?, tree: TreeStore) {
        self.init(key: key, tree: tree, node: tree.root)
    }

    /// A fragment that refers to the subtree at `node` of `tree`.
    init(key: [UInt8]?, tree: TreeStore, node: NodeID) {
        self.key = key
        origin = tree
        self.node = node
    }

    /// A scalar fragment, e.g. `Title = "Item 5"`.
    init(key: String?, scalar: Scalar) {
        var b = TreeBuilder()
        b.beginNode()
        b.endKey()
        b.appendText(scalar.text)
        b.finishScalar(scalar.kind)
        self.init(key: key.map { Array($0.utf8) }, tree: b.build())
    }

    /// A container fragment holding `members` (keys are dropped for an array).
    init(key: String?, container kind: ValueKind, members: [Fragment]) {
        precondition(kind.isContainer, "a container fragment needs the object or array kind")
        var b = TreeBuilder()
        b.beginNode()
        b.endKey()
        b.openContainer(kind)
        for m in members {
            b.append(m.origin, m.node, key: kind == .object ? (m.key ?? []) : [])
        }
        b.closeContainer()
        self.init(key: key.map { Array($0.utf8) }, tree: b.build())
    }

    /// The same value under another key.
    func keyed(_ newKey: [UInt8]?) -> Fragment { Fragment(key: newKey, tree: origin, node: node) }
}

extension TreeStore {
    /// The subtree at `id` as a fragment, keeping its key when its parent is an object.
    /// - Complexity: O(1) (the fragment refers to this tree's nodes)
    func fragment(at id: NodeID) -> Fragment {
        let key: [UInt8]? = parent(of: id).map { kind(of: $0) == .object } == true ? Array(keyBytes(of: id)) : nil
        return Fragment(key: key, tree: self, node: id)
    }
}

extension TreeBuilder {
    /// Emits the subtree at `id` of `tree` as the next node, with `key` as its key.
    /// - Complexity: O(size of the subtree); iterative, so any depth is safe.
    mutating func append(_ tree: TreeStore, _ id: NodeID, key: ArraySlice<UInt8>) {
        var stack: [Int32] = [id.rawValue]
        var first = true
        while let raw = stack.popLast() {
            if raw < 0 {
                closeContainer()
                continue
            }
            let n = NodeID(raw)
            beginNode()
            if first {
                text.append(contentsOf: key)
                first = false
            } else if let p = tree.parent(of: n), tree.kind(of: p) == .object {
                text.append(contentsOf: tree.keyBytes(of: n))
            }
            endKey()
            let k = tree.kind(of: n)
            if k.isContainer {
                openContainer(k)
                stack.append(-1)
                let range = tree.children(of: n)
                if range.isContiguous {
                    var c = range.upperBound
                    while c > range.lowerBound {
                        c -= 1
                        stack.append(c)
                    }
                } else {
                    stack.append(contentsOf: range.reversed().map(\.rawValue))
                }
            } else {
                text.append(contentsOf: tree.valueBytes(of: n))
                finishScalar(k)
            }
        }
    }

    mutating func append(_ tree: TreeStore, _ id: NodeID, key: [UInt8]) {
        append(tree, id, key: key[...])
    }
}
