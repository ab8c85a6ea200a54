extension TreeStore {
    /// The nodes whose subtrees may differ between `older` and this tree, when both are versions
    /// of one document (edits of the same base, in any order: undone, redone or branched): every
    /// node an edit between the two versions wrote, and its ancestors in either tree. A node of
    /// both trees that is not in the set has the same kind, key, value and children, down to
    /// every descendant, in both. `nil` when that is not known (different bases, or versions too
    /// far apart), so anything may differ.
    ///
    /// This lets a writer compare two versions at the cost of what changed between them
    /// (`DocumentPatch` skips every subtree outside the set).
    ///
    /// ```swift
    /// var doc = EditableDocument(source: source)
    /// try doc.apply(.updateTitle([3, 1], title: "Miles"))
    /// doc.tree.changedSubtrees(since: source.tree)   // the renamed node, its ancestors (and the record its parent got)
    /// ```
    /// - Complexity: O(ids written by the edits between the versions × depth)
    public func changedSubtrees(since older: TreeStore) -> Set<NodeID>? {
        guard sharesBase(with: older) else { return nil }
        guard let written = Self.idsWritten(from: older.overlay?.log, to: overlay?.log) else { return nil }
        var changed = Set<NodeID>()
        older.addAncestry(of: written, to: &changed)
        addAncestry(of: written, to: &changed)
        return changed
    }

    /// The most ids ``changedSubtrees(since:)`` collects before it gives up (a whole compare is then as cheap).
    static let changeLimit = 1 << 20

    /// The ids written on the way from the version `a` to the version `b` through their latest
    /// common version, or `nil` when the way crosses a cut of the log or is too long.
    static func idsWritten(from a: OverlayLog?, to b: OverlayLog?) -> [Int32]? {
        var a = a, b = b
        var ids: [Int32] = []
        /// Takes the entry `x`'s ids and steps back; `nil` at a cut.
        func step(_ x: OverlayLog) -> OverlayLog?? {
            ids.append(contentsOf: x.ids)
            if x.previous == nil, x.depth > 1 { return nil }
            return .some(x.previous)
        }
        while a !== b {
            if (a?.depth ?? 0) >= (b?.depth ?? 0) {
                guard let x = a, let back = step(x) else { return nil }
                a = back
            } else {
                guard let y = b, let back = step(y) else { return nil }
                b = back
            }
            if ids.count > changeLimit { return nil }
        }
        return ids
    }

    /// Adds each of `ids` that is a node of this tree and its ancestors to `set` (a node already
    /// there has had its ancestors added by an earlier walk of this tree or is reached again).
    func addAncestry(of ids: [Int32], to set: inout Set<NodeID>) {
        var visited = Set<NodeID>()
        let capacity = idCapacity
        for raw in ids where raw >= 0 && Int(raw) < capacity {
            var n = NodeID(raw)
            while visited.insert(n).inserted {
                set.insert(n)
                guard let p = parent(of: n) else { break }
                n = p
            }
        }
    }
}
