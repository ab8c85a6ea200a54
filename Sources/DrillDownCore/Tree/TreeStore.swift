/// A whole document as flat arrays: the compact, immutable in-memory tree every reader fills.
///
/// Nodes are addressed by ``NodeID``. Storage is a struct of arrays: per node a kind byte,
/// a parent id, its children as a contiguous id range, and one slice of a shared UTF-8
/// buffer holding its title (the key it has in its parent object) followed by its scalar value.
/// There is no object per node; a million-node JSON file costs about 25 bytes per node plus
/// its text.
///
/// The root is always ``root`` (id 0). An object's children are titled by their keys, an
/// array's children by their index (`0`, `1`, …).
///
/// Build one with ``TreeBuilder``.
public struct TreeStore: Sendable {
    @usableFromInline var kinds: [UInt8]
    @usableFromInline var parents: [Int32]
    @usableFromInline var firstChild: [Int32]
    @usableFromInline var childCounts: [Int32]
    @usableFromInline var textStart: [UInt32]
    @usableFromInline var titleLength: [UInt32]
    @usableFromInline var valueLength: [UInt32]
    @usableFromInline var text: [UInt8]

    init(
        kinds: [UInt8], parents: [Int32], firstChild: [Int32], childCounts: [Int32],
        textStart: [UInt32], titleLength: [UInt32], valueLength: [UInt32], text: [UInt8]
    ) {
        self.kinds = kinds
        self.parents = parents
        self.firstChild = firstChild
        self.childCounts = childCounts
        self.textStart = textStart
        self.titleLength = titleLength
        self.valueLength = valueLength
        self.text = text
    }

    /// The root node (the document's top-level value).
    public var root: NodeID { NodeID(Int32(0)) }

    /// The number of nodes.
    /// - Complexity: O(1)
    @inlinable public var count: Int { kinds.count }

    /// The kind of value at `id`.
    /// - Complexity: O(1)
    @inlinable public func kind(of id: NodeID) -> ValueKind { ValueKind(rawValue: kinds[id.index]) ?? .null }

    /// The parent of `id`, or `nil` for the root.
    /// - Complexity: O(1)
    @inlinable public func parent(of id: NodeID) -> NodeID? {
        let p = parents[id.index]
        return p < 0 ? nil : NodeID(p)
    }

    /// The children of `id` in document order.
    /// - Complexity: O(1)
    @inlinable public func children(of id: NodeID) -> NodeRange {
        let first = firstChild[id.index]
        return NodeRange(first, first + childCounts[id.index])
    }

    /// The number of children of `id`.
    /// - Complexity: O(1)
    @inlinable public func childCount(of id: NodeID) -> Int { Int(childCounts[id.index]) }

    /// The position of `id` among its siblings (0 for the root).
    /// - Complexity: O(1)
    @inlinable public func position(of id: NodeID) -> Int {
        let p = parents[id.index]
        return p < 0 ? 0 : Int(id.rawValue - firstChild[Int(p)])
    }

    /// The raw UTF-8 bytes of the key `id` has in its parent object (empty for array elements and the root).
    @inlinable public func keyBytes(of id: NodeID) -> ArraySlice<UInt8> {
        let start = Int(textStart[id.index])
        return text[start ..< start + Int(titleLength[id.index])]
    }

    /// The raw UTF-8 bytes of the scalar value at `id` (empty for containers).
    @inlinable public func valueBytes(of id: NodeID) -> ArraySlice<UInt8> {
        let start = Int(textStart[id.index]) + Int(titleLength[id.index])
        return text[start ..< start + Int(valueLength[id.index])]
    }

    /// The key of `id` in its parent object, or `nil` when the parent is not an object.
    public func key(of id: NodeID) -> String? {
        guard let p = parent(of: id), kind(of: p) == .object else { return nil }
        return String(decoding: keyBytes(of: id), as: UTF8.self)
    }

    /// The title of `id`: its key in an object, its index in an array, `""` for the root.
    public func title(of id: NodeID) -> String {
        guard let p = parent(of: id) else { return "" }
        if kind(of: p) == .array { return String(position(of: id)) }
        return String(decoding: keyBytes(of: id), as: UTF8.self)
    }

    /// The scalar value at `id`, or `nil` for containers.
    public func value(of id: NodeID) -> Scalar? {
        let k = kind(of: id)
        if k.isContainer { return nil }
        return Scalar(k, String(decoding: valueBytes(of: id), as: UTF8.self))
    }

    /// Whether the key of `id` equals `lowercasedKey` ignoring ASCII case.
    /// - Complexity: O(key length), no allocation.
    @inlinable public func keyEquals(_ id: NodeID, lowercased lowercasedKey: [UInt8]) -> Bool {
        let start = Int(textStart[id.index])
        let length = Int(titleLength[id.index])
        guard length == lowercasedKey.count else { return false }
        for i in 0 ..< length {
            var b = text[start + i]
            if b >= 65 && b <= 90 { b |= 0x20 }
            if b != lowercasedKey[i] { return false }
        }
        return true
    }

    /// The child of object `id` whose key matches one of `lowercasedKeys` (earlier keys win).
    public func member(of id: NodeID, lowercasedKeys: [[UInt8]]) -> NodeID? {
        guard kind(of: id) == .object else { return nil }
        let range = children(of: id)
        for key in lowercasedKeys {
            for child in range where keyEquals(child, lowercased: key) { return child }
        }
        return nil
    }

    /// Bytes of memory the node arrays and the text buffer occupy (reserved but never written
    /// capacity is not counted: the system does not back untouched pages).
    public var memoryFootprint: Int { count * (1 + 4 * 6) + text.count }

    /// The greatest depth of any node (the root has depth 0).
    /// - Complexity: O(n)
    public func maxDepth() -> Int {
        var depth = [Int32](repeating: 0, count: count)
        var best: Int32 = 0
        var stack: [Int32] = [0]
        while let n = stack.popLast() {
            let d = depth[Int(n)]
            if d > best { best = d }
            let first = firstChild[Int(n)]
            for c in first ..< first + childCounts[Int(n)] {
                depth[Int(c)] = d + 1
                if childCounts[Int(c)] > 0 { stack.append(c) } else if d + 1 > best { best = d + 1 }
            }
        }
        return Int(best)
    }

    /// The largest number of children any node has.
    /// - Complexity: O(n)
    public func widestLevel() -> Int { Int(childCounts.max() ?? 0) }
}
