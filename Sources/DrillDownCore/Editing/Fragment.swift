/// A detached piece of a document: one value (a scalar or a whole subtree) and the key it has
/// in its parent object, if any.
///
/// Fragments are what ``Splice``s put into a container, and what they take out of it, so that
/// every edit can be undone by putting back what it removed.
struct Fragment: Sendable {
    /// The key the value has in its parent object; `nil` for an array element.
    var key: [UInt8]?
    /// The value, as a tree whose root is the value itself.
    var tree: TreeStore

    /// Creates a fragment from a value tree and a key.
    init(key: [UInt8]?, tree: TreeStore) {
        self.key = key
        self.tree = tree
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
            b.append(m.tree, m.tree.root, key: kind == .object ? (m.key ?? []) : [])
        }
        b.closeContainer()
        self.init(key: key.map { Array($0.utf8) }, tree: b.build())
    }

    /// The same value under another key.
    func keyed(_ newKey: [UInt8]?) -> Fragment { Fragment(key: newKey, tree: tree) }
}

extension TreeStore {
    /// The subtree at `id` as a fragment, keeping its key when its parent is an object.
    /// - Complexity: O(size of the subtree)
    func fragment(at id: NodeID) -> Fragment {
        var b = TreeBuilder(expectedNodes: 16)
        b.append(self, id, key: [])
        let key: [UInt8]? = parent(of: id).map { kind(of: $0) == .object } == true ? Array(keyBytes(of: id)) : nil
        return Fragment(key: key, tree: b.build())
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
                var c = range.upperBound
                while c > range.lowerBound {
                    c -= 1
                    stack.append(c)
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
