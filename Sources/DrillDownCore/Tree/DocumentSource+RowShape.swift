extension DocumentSource {
    /// The rows below the root, the most children of any row (the root's included) and the depth
    /// of the deepest row (top-level rows have depth 1; 0 when there are none): exactly what a walk
    /// of ``children(of:)`` from ``root`` counts, read straight from the store.
    ///
    /// ```swift
    /// let shape = DocumentSource(tree: store).rowShape()   // (rows: 1001000, widest: 1000, depth: 2)
    /// ```
    ///
    /// Generic mode: the store's nodes but the root, ``TreeStore/widestLevel()`` and
    /// ``TreeStore/maxDepth()``. Outline mode, freshly read: one pass level by level over the
    /// store's arrays, each row's children key found among its members as
    /// ``TreeStore/member(of:lowercasedKeys:)`` finds it, and a row without an array member not
    /// looked at further (about 3 ns a row against 20 for ``children(of:)``). An edited outline
    /// is walked through ``children(of:)`` (``Source/walkedRowShape()``).
    /// - Complexity: O(1) for a freshly read generic document (the builder records its shape),
    ///   O(rows × members) for an outline.
    public func rowShape() -> (rows: Int, widest: Int, depth: Int) {
        guard case .outline = mode else { return (tree.count - 1, tree.widestLevel(), tree.maxDepth()) }
        let top = children(of: root)
        guard !top.isEmpty else { return (0, 0, 0) }
        guard tree.isDense else { return walkedRowShape() }
        return denseOutlineShape(Int(top.lowerBound) ..< Int(top.upperBound))
    }

    /// ``rowShape()`` of an unedited outline whose top-level rows are `top`: level by level, each
    /// row's children array looked up with the arrays held open.
    func denseOutlineShape(_ top: Range<Int>) -> (rows: Int, widest: Int, depth: Int) {
        let base = tree.base
        let object = ValueKind.object.rawValue, array = ValueKind.array.rawValue
        return base.kinds.withUnsafeBufferPointer { kinds in
            base.firstChild.withUnsafeBufferPointer { firsts in
                base.childCounts.withUnsafeBufferPointer { counts in
                    base.text.withUnsafeBufferPointer { text in
                        base.textStart.withUnsafeBufferPointer { starts in
                            base.titleLength.withUnsafeBufferPointer { lengths in
                                var rows = 0, widest = 0, depth = 0
                                var level = [top], next: [Range<Int>] = []
                                while !level.isEmpty {
                                    depth += 1
                                    for range in level {
                                        rows += range.count
                                        widest = max(widest, range.count)
                                        for row in range where kinds[row] == object {
                                            let first = Int(firsts[row])
                                            let members = first ..< first + Int(counts[row])
                                            // Without an array member no key can name a children array (most rows are leaves).
                                            guard members.contains(where: { kinds[$0] == array }),
                                                let list = TreeStore.denseMember(
                                                    in: members, lowercasedKeys: childKeys, text: text, starts: starts, lengths: lengths),
                                                kinds[list] == array, counts[list] > 0
                                            else { continue }
                                            let lo = Int(firsts[list])
                                            next.append(lo ..< lo + Int(counts[list]))
                                        }
                                    }
                                    swap(&level, &next)
                                    next.removeAll(keepingCapacity: true)
                                }
                                return (rows, widest, depth)
                            }
                        }
                    }
                }
            }
        }
    }
}
