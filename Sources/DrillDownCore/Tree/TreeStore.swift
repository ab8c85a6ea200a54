/// A whole document as flat arrays: the compact, immutable in-memory tree every reader fills.
///
/// Nodes are addressed by ``NodeID``. Storage is a struct of arrays: per node a kind byte,
/// a parent id, its children as a contiguous id range, and one slice of a shared UTF-8
/// buffer holding its title (the key it has in its parent object) followed by its scalar value.
/// There is no object per node; a million-node JSON file costs about 25 bytes per node plus
/// its text. That buffer may be the input file itself (``TextRegion``): a key and its value are
/// then slices of the file with up to 15 bytes between them (`": "`), a count kept in the kind
/// byte's high four bits.
///
/// Edits do not touch those arrays: they stay an immutable *base*, and every changed or new
/// node gets a record in a persistent overlay (a hash trie keyed by id, see ``TreeOverlay``),
/// so an edited tree shares almost everything with the tree it was made from and a change
/// costs what it touches. Reads check the overlay only for ids it holds: nothing when the tree
/// is unedited, one bit test per base node otherwise. An edited tree's ids are not dense
/// (removed nodes leave gaps, new nodes get ids from ``idCapacity`` on) and a changed level's
/// children are runs of ids (``NodeRange``); ``compacted()`` makes a dense copy.
///
/// The root is always ``root`` (id 0). An object's children are titled by their keys, an
/// array's children by their index (`0`, `1`, …).
///
/// Build one with ``TreeBuilder``.
public struct TreeStore: Sendable {
    /// The base's eight arrays in one box, so copying a tree (each change keeps several versions:
    /// its undo step's before and after, each splice's ``TreeEdit``) retains two references
    /// instead of nine.
    @usableFromInline let base: TreeBase
    /// The changes made since the base was read; `nil` for an unedited tree.
    @usableFromInline var overlay: TreeOverlay?

    @inlinable var kinds: [UInt8] { base.kinds }
    @inlinable var parents: [Int32] { base.parents }
    @inlinable var firstChild: [Int32] { base.firstChild }
    @inlinable var childCounts: [Int32] { base.childCounts }
    @inlinable var textStart: [UInt32] { base.textStart }
    @inlinable var titleLength: [UInt32] { base.titleLength }
    @inlinable var valueLength: [UInt32] { base.valueLength }
    @inlinable var text: TreeText { base.text }
    /// The kind byte's bits that hold the ``ValueKind``; the four above them hold the number of
    /// bytes between a node's key and its value in the text.
    @usableFromInline static let kindBits: UInt8 = 0x0F

    /// `shape`, when the builder knows it, is returned by ``maxDepth()`` and ``widestLevel()`` of the unedited tree.
    init(
        kinds: [UInt8], parents: [Int32], firstChild: [Int32], childCounts: [Int32],
        textStart: [UInt32], titleLength: [UInt32], valueLength: [UInt32], text: TreeText, shape: TreeShape? = nil
    ) {
        base = TreeBase(
            kinds: kinds, parents: parents, firstChild: firstChild, childCounts: childCounts,
            textStart: textStart, titleLength: titleLength, valueLength: valueLength, text: text, shape: shape)
        overlay = nil
    }

    init(_ columns: TreeBuilder.FilledColumns, text: TreeText) {
        self.init(
            kinds: columns.kinds, parents: columns.parents, firstChild: columns.firstChild, childCounts: columns.childCounts,
            textStart: columns.textStarts, titleLength: columns.titleLengths, valueLength: columns.valueLengths, text: text,
            shape: columns.shape)
    }

    /// The root node (the document's top-level value).
    public var root: NodeID { NodeID(Int32(0)) }

    /// The number of nodes (reachable from the root).
    /// - Complexity: O(1), except once per version after an edit removed a large subtree: O(n)
    ///   the first time it is asked (a change never walks the subtrees it removes).
    public var count: Int {
        guard let overlay else { return kinds.count }
        guard let cache = overlay.countCache else { return overlay.counted }
        return cache.value { reachableCount() }
    }

    /// The number of nodes reachable from the root, counted.
    /// - Complexity: O(n)
    func reachableCount() -> Int {
        var total = 0
        var stack = [root]
        while let n = stack.popLast() {
            total += 1
            stack.append(contentsOf: children(of: n))
        }
        return total
    }

    /// One past the greatest node id: the size of per-node side tables. Equal to ``count`` for
    /// an unedited tree.
    /// - Complexity: O(1)
    @inlinable public var idCapacity: Int { overlay.map { Int($0.capacity) } ?? kinds.count }

    /// Whether ids are dense (`0 ..< count`) and every level contiguous: true until the first edit.
    @inlinable public var isDense: Bool { overlay == nil }

    /// The overlay record of `id`, if it was changed or added by an edit.
    @inlinable func record(_ id: NodeID) -> StoredRecord? {
        guard let overlay else { return nil }
        return overlay.record(id.rawValue)
    }

    /// The kind of value at `id`.
    /// - Complexity: O(1)
    @inlinable public func kind(of id: NodeID) -> ValueKind {
        if let r = record(id) { return ValueKind(rawValue: r.kind) ?? .null }
        return ValueKind(rawValue: kinds[id.index] & Self.kindBits) ?? .null
    }

    /// The parent of `id`, or `nil` for the root.
    /// - Complexity: O(1)
    @inlinable public func parent(of id: NodeID) -> NodeID? {
        let p = record(id)?.parent ?? parents[id.index]
        return p < 0 ? nil : NodeID(p)
    }

    /// The children of `id` in document order.
    /// - Complexity: O(1)
    @inlinable public func children(of id: NodeID) -> NodeRange {
        if let r = record(id), let c = r.children { return c }
        let first = firstChild[id.index]
        return NodeRange(first, first + childCounts[id.index])
    }

    /// The number of children of `id`.
    /// - Complexity: O(1)
    @inlinable public func childCount(of id: NodeID) -> Int {
        if let r = record(id), let c = r.children { return c.count }
        return Int(childCounts[id.index])
    }

    /// The position of `id` among its siblings (0 for the root).
    /// - Complexity: O(1), O(log runs) in a level changed by edits
    @inlinable public func position(of id: NodeID) -> Int {
        guard let p = parent(of: id) else { return 0 }
        if overlay == nil { return Int(id.rawValue - firstChild[p.index]) }
        return children(of: p).position(of: id) ?? 0
    }

    /// The raw UTF-8 bytes of the key `id` has in its parent object (empty for array elements and the root).
    @inlinable public func keyBytes(of id: NodeID) -> TextBytes {
        if let r = record(id) { return TextBytes(r.key) }
        let start = Int(textStart[id.index])
        return text[start ..< start + Int(titleLength[id.index])]
    }

    /// The raw UTF-8 bytes of the scalar value at `id` (empty for containers).
    @inlinable public func valueBytes(of id: NodeID) -> TextBytes {
        if let r = record(id) { return TextBytes(r.value) }
        let start = Int(textStart[id.index]) + Int(titleLength[id.index]) + Int(kinds[id.index] &>> 4)
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
        if kind(of: p) == .array { return DecimalText.string(position(of: id)) }
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
        if let r = record(id) { return Self.equalsFolded(r.key[...], lowercasedKey) }
        let start = Int(textStart[id.index])
        let length = Int(titleLength[id.index])
        guard length == lowercasedKey.count else { return false }
        return text.withUnsafeBufferPointer { Self.equalsFolded(UnsafeBufferPointer(rebasing: $0[start ..< start + length]), lowercasedKey) }
    }

    @inlinable static func equalsFolded(_ key: ArraySlice<UInt8>, _ lowercasedKey: [UInt8]) -> Bool {
        guard key.count == lowercasedKey.count else { return false }
        return key.withUnsafeBufferPointer { equalsFolded($0, lowercasedKey) }
    }

    /// Whether `key` equals `lowercasedKey` ignoring ASCII case, byte by byte through pointers
    /// (a `zip` of the two went through generic iterator witnesses: 6% of a change).
    @inlinable static func equalsFolded(_ key: UnsafeBufferPointer<UInt8>, _ lowercasedKey: [UInt8]) -> Bool {
        guard key.count == lowercasedKey.count else { return false }
        return lowercasedKey.withUnsafeBufferPointer { want in
            for i in 0 ..< want.count {
                var b = key[i]
                if b >= 65 && b <= 90 { b |= 0x20 }
                if b != want[i] { return false }
            }
            return true
        }
    }

    /// The index of the first of `keys[..<limit]` that `key` equals ignoring ASCII case.
    @inlinable package static func rank(of key: UnsafeBufferPointer<UInt8>, in keys: [[UInt8]], below limit: Int) -> Int? {
        var k = 0
        while k < limit {
            if equalsFolded(key, keys[k]) { return k }
            k += 1
        }
        return nil
    }

    /// The child of object `id` whose key matches one of `lowercasedKeys` (earlier keys win).
    /// - Complexity: O(children × keys) byte comparisons, but one overlay lookup per child (the
    ///   children are walked once, each compared with every key, instead of once per key).
    public func member(of id: NodeID, lowercasedKeys: [[UInt8]]) -> NodeID? {
        guard !lowercasedKeys.isEmpty else { return nil }
        let parentRecord = record(id)
        guard (parentRecord?.kind ?? kinds[id.index] & Self.kindBits) == ValueKind.object.rawValue else { return nil }
        let range: NodeRange
        if let r = parentRecord, let c = r.children {
            range = c
        } else {
            let first = firstChild[id.index]
            range = NodeRange(first, first + childCounts[id.index])
        }
        if overlay == nil { return denseMember(in: range, lowercasedKeys: lowercasedKeys) }
        var best: NodeID?
        var bestRank = lowercasedKeys.count
        for child in range {
            let rank: Int?
            if let r = record(child) {
                rank = r.key.withUnsafeBufferPointer { Self.rank(of: $0, in: lowercasedKeys, below: bestRank) }
            } else {
                let start = Int(base.textStart[child.index])
                let length = Int(base.titleLength[child.index])
                rank = base.text.withUnsafeBufferPointer {
                    Self.rank(of: UnsafeBufferPointer(rebasing: $0[start ..< start + length]), in: lowercasedKeys, below: bestRank)
                }
            }
            if let rank {
                best = child
                bestRank = rank
                if rank == 0 { break }
            }
        }
        return best
    }

    /// ``member(of:lowercasedKeys:)`` of an unedited tree: keys read straight from the arrays, a
    /// key's bytes compared only when its length is that of a wanted key.
    func denseMember(in range: NodeRange, lowercasedKeys: [[UInt8]]) -> NodeID? {
        base.text.withUnsafeBufferPointer { text in
            base.textStart.withUnsafeBufferPointer { starts in
                base.titleLength.withUnsafeBufferPointer { lengths in
                    Self.denseMember(
                        in: Int(range.lowerBound) ..< Int(range.upperBound), lowercasedKeys: lowercasedKeys, text: text, starts: starts,
                        lengths: lengths
                    ).map { NodeID(Int32($0)) }
                }
            }
        }
    }

    /// ``denseMember(in:lowercasedKeys:)`` on arrays the caller holds open (a loop over many
    /// objects opens them once): the index of the member of `range` with the best-ranked key.
    @inline(__always) static func denseMember(
        in range: Range<Int>, lowercasedKeys: [[UInt8]], text: UnsafeBufferPointer<UInt8>, starts: UnsafeBufferPointer<UInt32>,
        lengths: UnsafeBufferPointer<UInt32>
    ) -> Int? {
        var best: Int?
        var bestRank = lowercasedKeys.count
        for child in range {
            let length = Int(lengths[child])
            var k = 0
            while k < bestRank {
                if lowercasedKeys[k].count == length {
                    let start = Int(starts[child])
                    if equalsFolded(UnsafeBufferPointer(rebasing: text[start ..< start + length]), lowercasedKeys[k]) {
                        best = child
                        bestRank = k
                        break
                    }
                }
                k += 1
            }
            if bestRank == 0 { break }
        }
        return best
    }

    /// Whether the keys and values are slices of the reader's input (a mapped file, see
    /// ``TextRegion``) rather than a copy: the tree then keeps that input mapped while it lives.
    public var textIsInInput: Bool { base.text.region != nil }

    /// Bytes of memory the node arrays, the text buffer and the overlay of edits occupy
    /// (reserved but never written capacity is not counted: the system does not back untouched pages).
    /// Text that is the mapped input (``textIsInInput``) counts whole: the file and what was
    /// decoded after it.
    public var memoryFootprint: Int { kinds.count * (1 + 4 * 6) + text.count + (overlay?.bytes ?? 0) }

    /// The greatest depth of any node (the root has depth 0).
    /// - Complexity: O(n)
    public func maxDepth() -> Int {
        guard overlay == nil else { return editedMaxDepth() }
        if let shape = base.shape { return shape.depth }
        // Unedited: straight from the arrays, visiting only nodes with children.
        return childCounts.withUnsafeBufferPointer { counts in
            firstChild.withUnsafeBufferPointer { firsts in
                var best = 0
                var stack: [(Int, Int)] = counts[0] > 0 ? [(0, 0)] : []
                while let (n, d) = stack.popLast() {
                    best = max(best, d + 1)
                    let lo = Int(firsts[n])
                    for c in lo ..< lo + Int(counts[n]) where counts[c] > 0 { stack.append((c, d + 1)) }
                }
                return best
            }
        }
    }

    /// ``maxDepth()`` of an edited tree, through the overlay.
    func editedMaxDepth() -> Int {
        var best = 0
        var stack: [(NodeID, Int)] = [(root, 0)]
        while let (n, d) = stack.popLast() {
            if d > best { best = d }
            for c in children(of: n) {
                if childCount(of: c) > 0 { stack.append((c, d + 1)) } else if d + 1 > best { best = d + 1 }
            }
        }
        return best
    }

    /// The largest number of children any node has.
    /// - Complexity: O(n)
    public func widestLevel() -> Int {
        guard overlay != nil else {
            if let shape = base.shape { return shape.widest }
            return childCounts.withUnsafeBufferPointer { counts in
                var best: Int32 = 0
                for c in counts { best = max(best, c) }
                return Int(best)
            }
        }
        var best = 0
        var stack = [root]
        while let n = stack.popLast() {
            let kids = children(of: n)
            best = max(best, kids.count)
            for c in kids where childCount(of: c) > 0 { stack.append(c) }
        }
        return best
    }

    /// This tree with dense ids and contiguous levels, as a reader makes it: itself when unedited.
    /// - Complexity: O(n) for an edited tree, O(1) otherwise.
    public func compacted() -> TreeStore {
        guard overlay != nil else { return self }
        var b = TreeBuilder(expectedNodes: count, expectedTextBytes: text.count)
        b.append(self, root, key: keyBytes(of: root))
        return b.build()
    }

    /// Every node in document order (depth first, parents before children).
    /// - Complexity: O(n) for the whole walk, O(depth) memory.
    public var nodes: Nodes { Nodes(tree: self) }

    /// The nodes of a tree in document order; see ``TreeStore/nodes``.
    public struct Nodes: Sequence, IteratorProtocol, Sendable {
        let tree: TreeStore
        var stack: [NodeRange.Iterator] = []
        var started = false

        public mutating func next() -> NodeID? {
            if !started {
                started = true
                stack.append(tree.children(of: tree.root).makeIterator())
                return tree.root
            }
            while !stack.isEmpty {
                if let n = stack[stack.count - 1].next() {
                    if tree.childCount(of: n) > 0 { stack.append(tree.children(of: n).makeIterator()) }
                    return n
                }
                stack.removeLast()
            }
            return nil
        }
    }
}

/// The immutable base arrays of a ``TreeStore`` (see there), shared by every version of a document.
@usableFromInline final class TreeBase: Sendable {
    @usableFromInline let kinds: [UInt8]
    @usableFromInline let parents: [Int32]
    @usableFromInline let firstChild: [Int32]
    @usableFromInline let childCounts: [Int32]
    @usableFromInline let textStart: [UInt32]
    @usableFromInline let titleLength: [UInt32]
    @usableFromInline let valueLength: [UInt32]
    @usableFromInline let text: TreeText
    /// The depth and widest level, when the builder recorded them while filling the arrays.
    let shape: TreeShape?

    init(
        kinds: [UInt8], parents: [Int32], firstChild: [Int32], childCounts: [Int32],
        textStart: [UInt32], titleLength: [UInt32], valueLength: [UInt32], text: TreeText, shape: TreeShape?
    ) {
        self.shape = shape
        self.kinds = kinds
        self.parents = parents
        self.firstChild = firstChild
        self.childCounts = childCounts
        self.textStart = textStart
        self.titleLength = titleLength
        self.valueLength = valueLength
        self.text = text
    }
}

/// The greatest depth of any node (the root has depth 0) and the largest number of children of
/// any node, as a builder sees them go by (two comparisons per node instead of a walk afterwards).
struct TreeShape: Sendable {
    var depth = 0
    var widest = 0
}
