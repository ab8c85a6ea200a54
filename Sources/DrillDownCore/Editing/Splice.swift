/// The one primitive every ``Change`` is made of: replace a range of one container's children
/// by fragments.
///
/// A splice addresses its container by the *store* path (every object member and array element
/// counts, as in generic mode), so it means the same thing whichever ``ReadingMode`` the
/// document is read with. Its inverse is another splice, which is what makes undo exact.
struct Splice: Sendable {
    /// The store path of the container whose children change.
    var container: TreePath
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

    /// This tree with `splice` applied, and the inverse splice that puts it back.
    ///
    /// The whole tree is replayed through a ``TreeBuilder`` with the change spliced in, so ids
    /// stay dense and siblings contiguous.
    /// - Complexity: O(n) in the size of the tree.
    func applying(_ splice: Splice) -> (tree: TreeStore, inverse: Splice) {
        guard let target = storeNode(at: splice.container) else {
            preconditionFailure("splice container \(splice.container) was validated to exist")
        }
        let kids = children(of: target)
        precondition(kind(of: target).isContainer && splice.range.lowerBound >= 0 && splice.range.upperBound <= kids.count)
        let removed = splice.range.map { fragment(at: kids[$0]) }
        let inverse = Splice(
            container: splice.container,
            range: splice.range.lowerBound ..< splice.range.lowerBound + splice.fragments.count,
            fragments: removed)
        let added = splice.fragments.reduce(0) { $0 + $1.tree.count }
        let addedText = splice.fragments.reduce(0) { $0 + $1.tree.text.count + ($1.key?.count ?? 0) }
        var b = TreeBuilder(expectedNodes: count + added, expectedTextBytes: text.count + addedText)
        let targetIsObject = kind(of: target) == .object

        enum Item { case node(Int32, keyed: Bool), fragment(Int), close }
        var stack: [Item] = [.node(0, keyed: false)]
        stack.reserveCapacity(1024)
        text.withUnsafeBufferPointer { bytes in
            while let item = stack.popLast() {
                switch item {
                case .close:
                    b.closeContainer()
                case .fragment(let i):
                    let f = splice.fragments[i]
                    b.append(f.tree, f.tree.root, key: targetIsObject ? (f.key ?? []) : [])
                case .node(let raw, let keyed):
                    let i = Int(raw)
                    let start = Int(textStart[i]), keyLength = Int(titleLength[i])
                    b.beginNode()
                    if keyed { b.appendText(UnsafeBufferPointer(rebasing: bytes[start ..< start + keyLength])) }
                    b.endKey()
                    let k = ValueKind(rawValue: kinds[i]) ?? .null
                    guard k.isContainer else {
                        let valueStart = start + keyLength
                        b.appendText(UnsafeBufferPointer(rebasing: bytes[valueStart ..< valueStart + Int(valueLength[i])]))
                        b.finishScalar(k)
                        continue
                    }
                    b.openContainer(k)
                    stack.append(.close)
                    let first = firstChild[i], count = Int(childCounts[i])
                    let childKeyed = k == .object
                    if i == target.index {
                        var c = count
                        while c > splice.range.upperBound {
                            c -= 1
                            stack.append(.node(first + Int32(c), keyed: childKeyed))
                        }
                        for f in splice.fragments.indices.reversed() { stack.append(.fragment(f)) }
                        c = splice.range.lowerBound
                        while c > 0 {
                            c -= 1
                            stack.append(.node(first + Int32(c), keyed: childKeyed))
                        }
                    } else {
                        var c = first + Int32(count)
                        while c > first {
                            c -= 1
                            stack.append(.node(c, keyed: childKeyed))
                        }
                    }
                }
            }
        }
        return (b.build(), inverse)
    }
}
