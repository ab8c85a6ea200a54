extension TreeStore {
    /// Whether both trees hold the same document: the same kinds, keys (of object members),
    /// scalar texts and children in the same order. Node ids and buffer layout do not matter.
    ///
    /// ```swift
    /// var doc = EditableDocument(source: source)
    /// try doc.apply(.delete([0]))
    /// doc.undo()
    /// doc.tree.isStructurallyEqual(to: source.tree)   // true
    /// ```
    /// - Complexity: O(n)
    public func isStructurallyEqual(to other: TreeStore) -> Bool {
        guard count == other.count else { return false }
        var stack: [(NodeID, NodeID)] = [(root, other.root)]
        while let (a, b) = stack.popLast() {
            let k = kind(of: a)
            guard k == other.kind(of: b) else { return false }
            if k.isContainer {
                let ca = children(of: a), cb = other.children(of: b)
                guard ca.count == cb.count else { return false }
                for i in 0 ..< ca.count {
                    if k == .object, keyBytes(of: ca[i]) != other.keyBytes(of: cb[i]) { return false }
                    stack.append((ca[i], cb[i]))
                }
            } else if valueBytes(of: a) != other.valueBytes(of: b) {
                return false
            }
        }
        return true
    }
}
