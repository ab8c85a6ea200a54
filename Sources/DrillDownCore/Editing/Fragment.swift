/// A detached piece of a document: one value (a scalar or a whole subtree) and the key it has
/// in its parent object, if any.
///
/// Fragments are what ``Splice``s put into a container. A fragment is either a value of its own
/// (a new scalar, or a new container of fragments) or a reference to a subtree of a tree
/// (``fragment(at:)``, O(1)): a splice that puts such a subtree back where the same edit took it
/// from (a rename, a move) relinks its nodes instead of copying them.
///
/// A new value is kept as it is given, not built into a ``TreeStore`` of its own: a splice writes
/// its few records straight into the overlay (a tree of its own cost eight array allocations per
/// fragment, several per change).
struct Fragment: Sendable {
    /// The key the value has in its parent object; `nil` for an array element.
    var key: [UInt8]?
    /// The value.
    var content: Content

    /// What a fragment holds.
    enum Content: Sendable {
        /// The subtree at a node of a tree (a document being edited, or a value tree).
        case subtree(TreeStore, NodeID)
        /// A new scalar: its kind and its text.
        case scalar(ValueKind, [UInt8])
        /// A new container (object or array) of these members (keys are dropped inside an array).
        case container(ValueKind, [Fragment])
    }

    /// The tree and node this fragment refers to, when it is a subtree of a tree.
    var subtree: (origin: TreeStore, node: NodeID)? {
        if case .subtree(let origin, let node) = content { return (origin, node) }
        return nil
    }

    /// The value as a tree whose root is the value itself (a copy for a fragment that refers to a subtree).
    /// - Complexity: O(1) for a whole tree, O(size of the value) otherwise.
    var tree: TreeStore {
        if case .subtree(let origin, let node) = content, node == origin.root { return origin }
        var b = TreeBuilder(expectedNodes: 16)
        append(to: &b, key: [])
        return b.build()
    }

    /// Emits the value as the next node of `b`, keyed by `key`.
    func append(to b: inout TreeBuilder, key: [UInt8]) {
        switch content {
        case .subtree(let origin, let node):
            b.append(origin, node, key: key)
        case .scalar(let kind, let text):
            b.beginNode()
            b.text.append(contentsOf: key)
            b.endKey()
            b.text.append(contentsOf: text)
            b.finishScalar(kind)
        case .container(let kind, let members):
            b.beginNode()
            b.text.append(contentsOf: key)
            b.endKey()
            b.openContainer(kind)
            for m in members { m.append(to: &b, key: kind == .object ? (m.key ?? []) : []) }
            b.closeContainer()
        }
    }

    /// Creates a fragment from a value tree and a key.
    init(key: [UInt8]?, tree: TreeStore) {
        self.init(key: key, tree: tree, node: tree.root)
    }

    /// A fragment that refers to the subtree at `node` of `tree`.
    init(key: [UInt8]?, tree: TreeStore, node: NodeID) {
        self.key = key
        content = .subtree(tree, node)
    }

    /// A scalar fragment, e.g. `Title = "Item 5"`.
    init(key: String?, scalar: Scalar) {
        self.init(key: key.map { Array($0.utf8) }, scalar: scalar)
    }

    /// A scalar fragment under a key given as bytes.
    init(key: [UInt8]?, scalar: Scalar) {
        self.key = key
        content = .scalar(scalar.kind, Array(scalar.text.utf8))
    }

    /// A container fragment holding `members` (keys are dropped for an array).
    init(key: String?, container kind: ValueKind, members: [Fragment]) {
        precondition(kind.isContainer, "a container fragment needs the object or array kind")
        self.key = key.map { Array($0.utf8) }
        content = .container(kind, members)
    }

    /// The same value under another key.
    func keyed(_ newKey: [UInt8]?) -> Fragment {
        var f = self
        f.key = newKey
        return f
    }
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
    mutating func append(_ tree: TreeStore, _ id: NodeID, key: TextBytes) {
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
        append(tree, id, key: TextBytes(key))
    }
}
