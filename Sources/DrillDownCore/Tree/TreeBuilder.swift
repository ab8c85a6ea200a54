/// Fills a ``TreeStore`` from a stream of parse events, in one pass and without a node object per value.
///
/// Readers call, for every value in document order:
/// 1. ``beginNode()``, then append the node's key bytes (if it is an object member) with
///    ``appendText(_:)``, then ``endKey()``;
/// 2. for a scalar: append its value text and call ``finishScalar(_:)``;
///    for a container: ``openContainer(_:)``, its members, then ``closeContainer()``.
///
/// ```swift
/// var b = TreeBuilder()
/// b.beginNode(); b.endKey(); b.openContainer(.object)        // {
/// b.beginNode(); b.appendText("a"); b.endKey()               //   "a":
/// b.appendText("1"); b.finishScalar(.integer)                //        1
/// b.closeContainer()                                         // }
/// let tree = try b.build()
/// ```
///
/// Siblings are given consecutive ids when their container closes, which is what lets
/// every later structure (outline, navigation) address children as an id range.
public struct TreeBuilder: Sendable {
    @usableFromInline struct Pending: Sendable {
        @usableFromInline var textStart: UInt32
        @usableFromInline var titleLength: UInt32
        @usableFromInline var valueLength: UInt32
        @usableFromInline var kind: UInt8
        @usableFromInline var firstChild: Int32
        @usableFromInline var childCount: Int32
        @usableFromInline init(textStart: UInt32) {
            self.textStart = textStart
            titleLength = 0
            valueLength = 0
            kind = 0
            firstChild = 0
            childCount = 0
        }
    }

    @usableFromInline var kinds: [UInt8] = [0]
    @usableFromInline var parents: [Int32] = [-1]
    @usableFromInline var firstChild: [Int32] = [0]
    @usableFromInline var childCounts: [Int32] = [0]
    @usableFromInline var textStarts: [UInt32] = [0]
    @usableFromInline var titleLengths: [UInt32] = [0]
    @usableFromInline var valueLengths: [UInt32] = [0]
    /// The shared text buffer; readers append key and value bytes to it.
    public var text: [UInt8] = []
    @usableFromInline var pending: [Pending] = []
    @usableFromInline var frames: [Int] = []
    @usableFromInline var current = Pending(textStart: 0)

    /// Bytes of the node arrays per node: a kind byte and six 32-bit fields.
    public static let bytesPerNode = 1 + 6 * 4

    /// Creates a builder; `expectedNodes` and `expectedTextBytes` pre-size the arrays, when the system
    /// can give that much memory now (the arrays grow as they fill otherwise).
    public init(expectedNodes: Int = 0, expectedTextBytes: Int = 0) {
        let expected = max(0, expectedNodes).multipliedReportingOverflow(by: Self.bytesPerNode)
        guard !expected.overflow, SystemMemory.canReserve(expected.partialValue + max(0, expectedTextBytes)) else {
            pending.reserveCapacity(256)
            frames.reserveCapacity(64)
            return
        }
        if expectedNodes > 0 {
            kinds.reserveCapacity(expectedNodes)
            parents.reserveCapacity(expectedNodes)
            firstChild.reserveCapacity(expectedNodes)
            childCounts.reserveCapacity(expectedNodes)
            textStarts.reserveCapacity(expectedNodes)
            titleLengths.reserveCapacity(expectedNodes)
            valueLengths.reserveCapacity(expectedNodes)
        }
        if expectedTextBytes > 0 { text.reserveCapacity(expectedTextBytes) }
        pending.reserveCapacity(256)
        frames.reserveCapacity(64)
    }

    /// The nesting depth of open containers.
    @inlinable public var depth: Int { frames.count }

    /// The kind of the innermost open container, if any.
    @inlinable public var openContainerKind: ValueKind? {
        guard let mark = frames.last else { return nil }
        return ValueKind(rawValue: pending[mark - 1].kind)
    }

    /// Starts a node: key and value bytes appended from now on belong to it.
    @inlinable public mutating func beginNode() {
        current = Pending(textStart: UInt32(truncatingIfNeeded: text.count))
    }

    /// Appends one byte of text to the current node.
    @inlinable public mutating func appendText(_ byte: UInt8) { text.append(byte) }

    /// Appends bytes of text to the current node.
    @inlinable public mutating func appendText(_ bytes: UnsafeBufferPointer<UInt8>) { text.append(contentsOf: bytes) }

    /// Appends a string's UTF-8 to the current node.
    @inlinable public mutating func appendText(_ string: String) { text.append(contentsOf: string.utf8) }

    /// Ends the current node's key: bytes appended from now on are its value.
    @inlinable public mutating func endKey() {
        current.titleLength = UInt32(truncatingIfNeeded: text.count) - current.textStart
    }

    /// Drops the bytes appended since the key ended (for readers that re-emit a value).
    @inlinable public mutating func discardValueText() {
        text.removeLast(text.count - Int(current.textStart + current.titleLength))
    }

    /// Finishes the current node as a scalar whose text is everything appended since ``endKey()``.
    @inlinable public mutating func finishScalar(_ kind: ValueKind) {
        current.valueLength = UInt32(truncatingIfNeeded: text.count) - current.textStart - current.titleLength
        current.kind = kind.rawValue
        pending.append(current)
    }

    /// Finishes the current node as a container and makes it the parent of the nodes that follow.
    @inlinable public mutating func openContainer(_ kind: ValueKind) {
        current.kind = kind.rawValue
        pending.append(current)
        frames.append(pending.count)
    }

    /// Closes the innermost open container: its children get consecutive ids.
    public mutating func closeContainer() {
        let mark = frames.removeLast()
        let first = Int32(truncatingIfNeeded: kinds.count)
        let n = pending.count - mark
        for i in mark ..< pending.count {
            let p = pending[i]
            let id = Int32(truncatingIfNeeded: kinds.count)
            kinds.append(p.kind)
            parents.append(-1)
            firstChild.append(p.firstChild)
            childCounts.append(p.childCount)
            textStarts.append(p.textStart)
            titleLengths.append(p.titleLength)
            valueLengths.append(p.valueLength)
            if p.childCount > 0 {
                let lo = Int(p.firstChild)
                parents.withUnsafeMutableBufferPointer { buf in
                    for c in lo ..< lo + Int(p.childCount) { buf[c] = id }
                }
            }
        }
        pending.removeLast(n)
        pending[mark - 1].firstChild = first
        pending[mark - 1].childCount = Int32(n)
    }

    /// Whether a complete top-level value has been read.
    @inlinable public var isComplete: Bool { frames.isEmpty && pending.count == 1 }

    /// The first member of the innermost open container whose key an earlier member has, and that
    /// earlier member, as positions in the container; `nil` when all keys differ. Readers call it
    /// before closing an object, to refuse it with the key and where it is (see ``DuplicateKeys``).
    /// - Complexity: O(k log k) for k members.
    @inlinable public func duplicateKeyInOpenContainer() -> (later: Int, earlier: Int)? {
        guard let mark = frames.last, pending.count - mark > 1 else { return nil }
        return pending.withUnsafeBufferPointer { members in
            text.withUnsafeBufferPointer { bytes in
                func key(_ i: Int) -> UnsafeRawBufferPointer {
                    let m = members[mark &+ i]
                    return UnsafeRawBufferPointer(start: bytes.baseAddress.map { $0 + Int(m.textStart) }, count: Int(m.titleLength))
                }
                // Two members (the common object) are compared in place.
                if members.count - mark == 2 { return DuplicateKeys.same(key(0), key(1)) ? (1, 0) : nil }
                return DuplicateKeys.first(count: members.count - mark, key: key)
            }
        }
    }

    /// The key of member `position` of the innermost open container, for messages.
    public func keyInOpenContainer(_ position: Int) -> String {
        guard let mark = frames.last, mark + position < pending.count else { return "" }
        let p = pending[mark + position]
        return String(decoding: text[Int(p.textStart) ..< Int(p.textStart) + Int(p.titleLength)], as: UTF8.self)
    }

    /// Produces the store. Requires exactly one complete top-level value.
    public mutating func build() -> TreeStore {
        precondition(isComplete, "TreeBuilder.build() needs exactly one complete top-level value")
        let root = pending[0]
        kinds[0] = root.kind
        firstChild[0] = root.firstChild
        childCounts[0] = root.childCount
        textStarts[0] = root.textStart
        titleLengths[0] = root.titleLength
        valueLengths[0] = root.valueLength
        let lo = Int(root.firstChild)
        for c in lo ..< lo + Int(root.childCount) { parents[c] = 0 }
        pending.removeAll()
        // Pre-sizing is a guess from the input's size. Reserved pages that were never written cost
        // no memory, so only a gross over-reservation (over half unused) is worth a copy, when the
        // copy can have its memory.
        func fitted<T>(_ a: [T]) -> [T] {
            guard a.capacity > 2 * a.count + 64, SystemMemory.canReserve(a.count * MemoryLayout<T>.stride) else { return a }
            return [T](unsafeUninitializedCapacity: a.count) { buffer, count in
                _ = a.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
                count = a.count
            }
        }
        return TreeStore(
            kinds: fitted(kinds), parents: fitted(parents), firstChild: fitted(firstChild),
            childCounts: fitted(childCounts), textStart: fitted(textStarts), titleLength: fitted(titleLengths),
            valueLength: fitted(valueLengths), text: TreeText(fitted(text)))
    }
}

extension TreeBuilder {
    /// A builder that writes nodes straight into the store's final arrays, for readers that know
    /// an upper bound of the node count and text size before they start (the JSON reader counts
    /// them in a first pass). Same calls and the same id layout as ``TreeBuilder``, but no array
    /// grows, nothing is copied into place at the end, and no call checks uniqueness: a node costs
    /// a few stores. Use it only through ``TreeBuilder/build(nodeCapacity:textCapacity:_:)``.
    public struct Columns {
        @usableFromInline let kinds: UnsafeMutablePointer<UInt8>
        @usableFromInline let parents: UnsafeMutablePointer<Int32>
        @usableFromInline let firstChild: UnsafeMutablePointer<Int32>
        @usableFromInline let childCounts: UnsafeMutablePointer<Int32>
        @usableFromInline let textStarts: UnsafeMutablePointer<UInt32>
        @usableFromInline let titleLengths: UnsafeMutablePointer<UInt32>
        @usableFromInline let valueLengths: UnsafeMutablePointer<UInt32>
        @usableFromInline let nodeCapacity: Int
        /// The text buffer; ``textCount`` bytes of it are written.
        public let text: UnsafeMutablePointer<UInt8>
        /// Bytes of ``text`` written so far.
        public var textCount = 0
        /// Bytes ``text`` can hold.
        public let textCapacity: Int
        /// Nodes given their final ids so far (id 0, the root, is placed last).
        @usableFromInline var nodeCount = 1
        /// Nodes read but not yet placed (their container is still open), in document order.
        @usableFromInline var pending: UnsafeMutablePointer<Pending>
        @usableFromInline var pendingCount = 0
        @usableFromInline var pendingCapacity: Int
        /// Start in ``pending`` of each open container's children.
        @usableFromInline var frames: UnsafeMutablePointer<Int>
        @usableFromInline var frameCount = 0
        @usableFromInline var frameCapacity: Int
        /// The current node's text start and key length. Kept as two integers, not a ``Pending``:
        /// writing one field of a struct and then copying the struct whole made the CPU wait for
        /// the narrow store to reach memory (a store-forwarding stall, 10% of the load's time).
        @usableFromInline var currentStart: UInt32 = 0
        @usableFromInline var currentTitleLength: UInt32 = 0
        /// Whether the current node's key is a slice of lent memory (``sliceKey(_:_:)``) rather
        /// than bytes appended to ``text``.
        @usableFromInline var currentIsSlice = false
        /// Whether ``text`` starts with memory lent by the reader (its input), which keys and
        /// values may be slices of (``sliceKey(_:_:)``, ``finishScalar(_:slice:_:)``); appended
        /// text goes after it, from ``textCount``'s first value.
        public let lendsInput: Bool
        /// Set when more nodes arrived than the capacity: the result is then discarded.
        @usableFromInline var overflowed = false
        /// Set when two members of an object share a key (``DuplicateKeys``): the result is then
        /// discarded, and the reader's full parser reports where.
        @usableFromInline var repeatedKey = false
        /// Set by ``finishPlaced()``: every node was written at its id, there is no pending root.
        @usableFromInline var placedAll = false
        /// The greatest depth of a placed node (children are one deeper than their container).
        @usableFromInline var deepest = 0
        /// The most children a closed container had.
        @usableFromInline var widest = 0
        /// Whether every child of the innermost open container so far is a scalar. Such children
        /// are written straight to the ids they will have (``tentative`` of them from
        /// ``nodeCount``): no container can close before this one, so nothing else takes those ids.
        /// A container child ends this (``spillTentative()``): the innermost container's children
        /// then wait in ``pending`` as before. Most containers (records, rows) hold only scalars,
        /// so most nodes are written once instead of pended and copied.
        @usableFromInline var direct = false
        /// Children of the innermost open container written in place (see ``direct``).
        @usableFromInline var tentative = 0

        @usableFromInline init(
            kinds: UnsafeMutablePointer<UInt8>, parents: UnsafeMutablePointer<Int32>, firstChild: UnsafeMutablePointer<Int32>,
            childCounts: UnsafeMutablePointer<Int32>, textStarts: UnsafeMutablePointer<UInt32>,
            titleLengths: UnsafeMutablePointer<UInt32>, valueLengths: UnsafeMutablePointer<UInt32>, nodeCapacity: Int,
            text: UnsafeMutablePointer<UInt8>, textCapacity: Int, appendFrom: Int = 0
        ) {
            self.kinds = kinds
            self.parents = parents
            self.firstChild = firstChild
            self.childCounts = childCounts
            self.textStarts = textStarts
            self.titleLengths = titleLengths
            self.valueLengths = valueLengths
            self.nodeCapacity = nodeCapacity
            self.text = text
            self.textCapacity = textCapacity
            textCount = appendFrom
            lendsInput = appendFrom > 0
            pendingCapacity = 1024
            pending = .allocate(capacity: pendingCapacity)
            frameCapacity = 64
            frames = .allocate(capacity: frameCapacity)
        }

        @usableFromInline func release() {
            pending.deallocate()
            frames.deallocate()
        }

        /// The nesting depth of open containers.
        @inlinable public var depth: Int { frameCount }

        /// Starts a node: text appended from now on belongs to it.
        @inlinable @inline(__always) public mutating func beginNode() {
            currentStart = UInt32(truncatingIfNeeded: textCount)
            currentTitleLength = 0
            currentIsSlice = false
        }

        /// Makes the `count` lent bytes at offset `start` (see ``lendsInput``) the current node's
        /// key, instead of ``appendText(_:_:)`` and ``endKey()``.
        @inlinable @inline(__always) public mutating func sliceKey(_ start: Int, _ count: Int) {
            currentIsSlice = true
            currentStart = UInt32(truncatingIfNeeded: start)
            currentTitleLength = UInt32(truncatingIfNeeded: count)
        }

        /// Finishes the current node as a scalar whose value is the `count` lent bytes at offset
        /// `start` (see ``lendsInput``): a slice when the node has no key, or its key is a slice
        /// that ends at most 15 bytes before `start` (the gap goes in the kind byte's high bits);
        /// otherwise the bytes are appended after its key as ``appendText(_:_:)`` does.
        @inlinable @inline(__always) public mutating func finishScalar(_ kind: ValueKind, slice start: Int, _ count: Int) -> Bool {
            let gap: Int
            if currentIsSlice {
                gap = start &- Int(currentStart &+ currentTitleLength)
                guard gap <= 15 else {
                    guard copySliceKey(), appendText(text + start, count) else { return false }
                    finishScalar(kind)
                    return true
                }
            } else if currentStart == UInt32(truncatingIfNeeded: textCount) {
                // No key (an array's element, the root): the value alone.
                gap = 0
                currentStart = UInt32(truncatingIfNeeded: start)
            } else {
                guard appendText(text + start, count) else { return false }
                finishScalar(kind)
                return true
            }
            store(kind.rawValue | UInt8(truncatingIfNeeded: gap) &<< 4, valueLength: UInt32(truncatingIfNeeded: count))
            return true
        }

        /// Appends the current node's key, a slice of the lent memory, so that its value can be
        /// appended after it (an escaped value, or one too far from its key).
        @usableFromInline mutating func copySliceKey() -> Bool {
            let key = Int(currentStart)
            currentIsSlice = false
            currentStart = UInt32(truncatingIfNeeded: textCount)
            return appendText(text + key, Int(currentTitleLength))
        }

        /// Called before a decoded value is appended: a key that is a slice is appended first.
        @inlinable @inline(__always) public mutating func willAppendDecoded() -> Bool {
            currentIsSlice ? copySliceKey() : true
        }

        /// Appends `count` bytes at `bytes` to the current node; `false` (and nothing written) when
        /// the text capacity would be exceeded.
        @inlinable @inline(__always) public mutating func appendText(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Bool {
            guard count <= textCapacity &- textCount else { return false }
            (text + textCount).update(from: bytes, count: count)
            textCount &+= count
            return true
        }

        /// Appends `count` ≤ 16 bytes at `bytes`, where 16 bytes can be read, with one 16-byte move.
        @inlinable @inline(__always) public mutating func appendShortText(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Bool {
            guard textCapacity &- textCount >= 16 else { return appendText(bytes, count) }
            let from = UnsafeRawPointer(bytes), to = UnsafeMutableRawPointer(text + textCount)
            to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
            textCount &+= count
            return true
        }

        /// Ends the current node's key: text appended from now on is its value.
        @inlinable @inline(__always) public mutating func endKey() {
            currentTitleLength = UInt32(truncatingIfNeeded: textCount) &- currentStart
        }

        /// Finishes the current node as a scalar whose text is everything appended since ``endKey()``.
        @inlinable @inline(__always) public mutating func finishScalar(_ kind: ValueKind) {
            store(kind.rawValue, valueLength: UInt32(truncatingIfNeeded: textCount) &- currentStart &- currentTitleLength)
        }

        /// Writes the current node as a scalar of kind byte `kindByte`: at its id when its
        /// container's children are written in place (``direct``), or into ``pending``.
        @inlinable @inline(__always) mutating func store(_ kindByte: UInt8, valueLength: UInt32) {
            guard direct else { return push(kindByte, valueLength: valueLength) }
            let id = nodeCount &+ tentative
            guard id < nodeCapacity else {
                overflowed = true
                return
            }
            kinds[id] = kindByte
            firstChild[id] = 0
            childCounts[id] = 0
            textStarts[id] = currentStart
            titleLengths[id] = currentTitleLength
            valueLengths[id] = valueLength
            tentative &+= 1
        }

        /// Finishes the current node as a container and makes it the parent of the nodes that follow.
        @inlinable @inline(__always) public mutating func openContainer(_ kind: ValueKind) {
            if direct {
                if tentative > 0 { spillTentative() }
                direct = false
            }
            push(kind.rawValue, valueLength: 0)
            if frameCount == frameCapacity { growFrames() }
            frames[frameCount] = pendingCount
            frameCount &+= 1
            direct = true
            tentative = 0
        }

        /// Moves the innermost container's children written in place into ``pending`` (a container
        /// child arrived: its children take the next ids). Each node moves at most once.
        @usableFromInline mutating func spillTentative() {
            for id in nodeCount ..< nodeCount + tentative {
                if pendingCount == pendingCapacity { growPending() }
                let p = pending + pendingCount
                p.pointee.textStart = textStarts[id]
                p.pointee.titleLength = titleLengths[id]
                p.pointee.valueLength = valueLengths[id]
                p.pointee.kind = kinds[id]
                p.pointee.firstChild = 0
                p.pointee.childCount = 0
                pendingCount &+= 1
            }
            tentative = 0
        }

        /// Appends the current node to ``pending``, field by field (see ``currentStart``).
        @inlinable @inline(__always) mutating func push(_ kind: UInt8, valueLength: UInt32) {
            if pendingCount == pendingCapacity { growPending() }
            let p = pending + pendingCount
            p.pointee.textStart = currentStart
            p.pointee.titleLength = currentTitleLength
            p.pointee.valueLength = valueLength
            p.pointee.kind = kind
            p.pointee.firstChild = 0
            p.pointee.childCount = 0
            pendingCount &+= 1
        }

        @usableFromInline mutating func growPending() {
            let bigger = UnsafeMutablePointer<Pending>.allocate(capacity: pendingCapacity * 2)
            bigger.moveInitialize(from: pending, count: pendingCount)
            pending.deallocate()
            pending = bigger
            pendingCapacity *= 2
        }

        @usableFromInline mutating func growFrames() {
            let bigger = UnsafeMutablePointer<Int>.allocate(capacity: frameCapacity * 2)
            bigger.moveInitialize(from: frames, count: frameCount)
            frames.deallocate()
            frames = bigger
            frameCapacity *= 2
        }

        /// Closes the innermost open container: its children get consecutive ids. Requires an open container.
        @inlinable @inline(__always) public mutating func closeContainer() {
            frameCount -= 1
            let mark = frames[frameCount]
            let first = nodeCount
            if direct {
                // Its children are in place already (all scalars: no parents to point at it).
                let n = tentative
                direct = false
                nodeCount = first + n
                if n > 0 { deepest = max(deepest, frameCount &+ 1) }
                widest = max(widest, n)
                pending[mark - 1].firstChild = Int32(truncatingIfNeeded: first)
                pending[mark - 1].childCount = Int32(truncatingIfNeeded: n)
                if n > 1 && pending[mark - 1].kind == ValueKind.object.rawValue { checkKeys(first, n) }
                return
            }
            let n = pendingCount - mark
            guard n <= nodeCapacity - first else {
                overflowed = true
                pendingCount = mark
                return
            }
            // Field by field: each load has the width of the store that wrote it (see ``currentStart``).
            // A node's parent is not written here: its parent writes it when it is placed in turn
            // (below), and ``finish()`` does for the root's children.
            for i in 0 ..< n {
                let p = pending + (mark &+ i)
                let id = first &+ i
                let children = p.pointee.childCount
                kinds[id] = p.pointee.kind
                firstChild[id] = p.pointee.firstChild
                childCounts[id] = children
                textStarts[id] = p.pointee.textStart
                titleLengths[id] = p.pointee.titleLength
                valueLengths[id] = p.pointee.valueLength
                if children > 0 {
                    (parents + Int(p.pointee.firstChild)).update(repeating: Int32(truncatingIfNeeded: id), count: Int(children))
                }
            }
            nodeCount = first + n
            // The container is at depth `frameCount` (already closed), its children one deeper.
            if n > 0 { deepest = max(deepest, frameCount &+ 1) }
            widest = max(widest, n)
            pendingCount = mark
            pending[mark - 1].firstChild = Int32(truncatingIfNeeded: first)
            pending[mark - 1].childCount = Int32(truncatingIfNeeded: n)
            if n > 1 && pending[mark - 1].kind == ValueKind.object.rawValue { checkKeys(first, n) }
        }

        /// Fails the build when two of the `count` members placed from id `first` share a key.
        @inlinable @inline(__always) mutating func checkKeys(_ first: Int, _ count: Int) {
            if Self.keysMayRepeat(text, textStarts, titleLengths, first, count) { repeatedKey = true }
        }

        /// Whether two of the `count` placed nodes from id `first` (an object's members) may share a
        /// key (see ``DuplicateKeys/mayRepeat(count:key:)``); for readers that place nodes themselves.
        @inlinable @inline(__always) public func keysMayRepeat(first: Int, count: Int) -> Bool {
            Self.keysMayRepeat(text, textStarts, titleLengths, first, count)
        }

        /// ``keysMayRepeat(first:count:)`` on the columns' pointers, not on `self`: a method of this
        /// large struct called in the parse loop had it copied (a `memcpy` per object, 10% of a JSON
        /// load). Two keys (the common object) are compared in place.
        @inlinable @inline(__always) static func keysMayRepeat(
            _ text: UnsafeMutablePointer<UInt8>, _ starts: UnsafeMutablePointer<UInt32>, _ lengths: UnsafeMutablePointer<UInt32>,
            _ first: Int, _ count: Int
        ) -> Bool {
            if count == 2 {
                return DuplicateKeys.same(
                    UnsafeRawBufferPointer(start: text + Int(starts[first]), count: Int(lengths[first])),
                    UnsafeRawBufferPointer(start: text + Int(starts[first &+ 1]), count: Int(lengths[first &+ 1])))
            }
            return keysMayRepeatAmongMany(text, starts, lengths, first, count)
        }

        @usableFromInline static func keysMayRepeatAmongMany(
            _ text: UnsafeMutablePointer<UInt8>, _ starts: UnsafeMutablePointer<UInt32>, _ lengths: UnsafeMutablePointer<UInt32>,
            _ first: Int, _ count: Int
        ) -> Bool {
            DuplicateKeys.mayRepeat(count: count) { UnsafeRawBufferPointer(start: text + Int(starts[first &+ $0]), count: Int(lengths[first &+ $0])) }
        }

        /// Writes node `id` whole, for readers that know every node's final id before they read it
        /// (the binary property-list reader, whose containers state their sizes up front) and so
        /// need no pending list. Such a reader uses only this and the text appends, writes each id
        /// below the node capacity exactly once, and ends with ``finishPlaced()``. An id past the
        /// capacity is not written and makes the build fail.
        @inlinable @inline(__always) public mutating func place(
            _ id: Int, kind: ValueKind, parent: Int, firstChild first: Int, childCount: Int,
            textStart: Int, titleLength: Int, valueLength: Int
        ) {
            guard id >= 0 && id < nodeCapacity else {
                overflowed = true
                return
            }
            kinds[id] = kind.rawValue
            parents[id] = Int32(truncatingIfNeeded: parent)
            firstChild[id] = Int32(truncatingIfNeeded: first)
            childCounts[id] = Int32(truncatingIfNeeded: childCount)
            textStarts[id] = UInt32(truncatingIfNeeded: textStart)
            titleLengths[id] = UInt32(truncatingIfNeeded: titleLength)
            valueLengths[id] = UInt32(truncatingIfNeeded: valueLength)
        }

        /// Declares every id below the node capacity written by ``place(_:kind:parent:firstChild:childCount:textStart:titleLength:valueLength:)``.
        @inlinable public mutating func finishPlaced() {
            placedAll = true
            nodeCount = nodeCapacity
        }

        /// Whether exactly one complete top-level value has been read and everything fitted.
        @inlinable public var isComplete: Bool { (placedAll || (frameCount == 0 && pendingCount == 1)) && !overflowed && !repeatedKey }

        /// Places the root at id 0.
        @usableFromInline mutating func finish() {
            let root = pending[0]
            kinds[0] = root.kind
            parents[0] = -1
            firstChild[0] = root.firstChild
            childCounts[0] = root.childCount
            textStarts[0] = root.textStart
            titleLengths[0] = root.titleLength
            valueLengths[0] = root.valueLength
            if root.childCount > 0 { (parents + Int(root.firstChild)).update(repeating: 0, count: Int(root.childCount)) }
        }
    }

    /// Builds a store by letting `fill` write at most `nodeCapacity` nodes and `textCapacity` text
    /// bytes straight into its arrays (see ``Columns``); `nil` when `fill` returns `false` or does
    /// not leave exactly one complete top-level value.
    ///
    /// The arrays are allocated once at their capacity; pages never written are never backed by
    /// memory, so a generous bound costs address space, not resident memory. When the system cannot
    /// give that much now (an address-space limit), the build throws ``ReservationFailure`` instead
    /// of letting the allocation abort the process; ``nodeCapacity(atMost:textCapacity:counted:)``
    /// picks a bound that fits.
    /// The first `expectedNodes` nodes and `expectedTextBytes` text bytes, when the reader knows
    /// them, are faulted in on a second thread while `fill` runs (see ``PageWarmer``).
    /// - Complexity: O(nodes + text bytes) beyond `fill` itself.
    public static func build(
        nodeCapacity: Int, textCapacity: Int, expectedNodes: Int = 0, expectedTextBytes: Int = 0, _ fill: (inout Columns) -> Bool
    ) throws(ReservationFailure) -> TreeStore? {
        try reserve(nodes: nodeCapacity, text: textCapacity)
        var columns: FilledColumns?
        let text = [UInt8](unsafeUninitializedCapacity: max(textCapacity, 1)) { t, textCount in
            HugePages.advise(t)
            columns = fillColumns(
                nodeCapacity: nodeCapacity, text: t.baseAddress!, textCapacity: t.count, appendFrom: 0,
                warm: (expectedNodes, min(expectedTextBytes, t.count)), fill)
            textCount = columns?.textCount ?? 0
        }
        return columns.map { TreeStore($0, text: TreeText(text)) }
    }

    /// ``build(nodeCapacity:textCapacity:expectedNodes:expectedTextBytes:_:)`` with the text in
    /// memory the reader lends (``TextRegion``): its input in the first `appendFrom` bytes, which
    /// keys and values may be slices of (``Columns/sliceKey(_:_:)``), and after them room for the text it
    /// appends. The tree keeps `region` alive.
    public static func build(
        nodeCapacity: Int, lending region: TextRegion, appendFrom: Int, expectedNodes: Int = 0, _ fill: (inout Columns) -> Bool
    ) throws(ReservationFailure) -> TreeStore? {
        precondition(appendFrom > 0 && appendFrom <= region.count, "appendFrom must be inside the region")
        try reserve(nodes: nodeCapacity, text: 0)
        guard
            let columns = fillColumns(
                nodeCapacity: nodeCapacity, text: UnsafeMutablePointer(mutating: region.base), textCapacity: region.count,
                appendFrom: appendFrom, warm: (expectedNodes, 0), fill)
        else { return nil }
        return TreeStore(columns, text: TreeText(region, count: columns.textCount))
    }

    /// Throws unless the node arrays for `nodes` nodes and `text` bytes of text can be reserved now.
    static func reserve(nodes: Int, text: Int) throws(ReservationFailure) {
        try SystemMemory.reserve(arrayBytes(nodes: nodes, text: text), for: "the tree's arrays (\(nodes) nodes at most, \(text) bytes of text)")
    }

    /// A node capacity for a ``build(nodeCapacity:textCapacity:expectedNodes:expectedTextBytes:_:)``:
    /// `generous` (a bound from the input's size alone, free to compute) when its arrays and
    /// `textCapacity` bytes can be reserved now, else what `counted` returns (a tighter bound that
    /// costs a pass over the input). A large input under an address-space limit then reserves what
    /// its nodes need rather than what its bytes could hold.
    public static func nodeCapacity(atMost generous: Int, textCapacity: Int, counted: () -> Int) -> Int {
        if SystemMemory.canReserve(arrayBytes(nodes: generous, text: textCapacity)) { return generous }
        return min(generous, counted())
    }

    /// Bytes of the arrays for `nodes` nodes and `text` bytes of text (`Int.max` past it).
    static func arrayBytes(nodes: Int, text: Int) -> Int {
        let (arrays, overflow) = max(nodes, 1).multipliedReportingOverflow(by: bytesPerNode)
        let (total, past) = arrays.addingReportingOverflow(max(text, 1))
        return overflow || past ? Int.max : total
    }

    /// The node arrays ``Columns`` filled, and the text bytes written.
    struct FilledColumns {
        var kinds: [UInt8] = [], parents: [Int32] = [], firstChild: [Int32] = [], childCounts: [Int32] = []
        var textStarts: [UInt32] = [], titleLengths: [UInt32] = [], valueLengths: [UInt32] = []
        var shape: TreeShape?
        var textCount = 0
    }

    /// Creates the node arrays at `nodeCapacity` and lets `fill` write them and the text at `text`;
    /// `nil` when `fill` fails or leaves no complete value. `warm` is the nodes and text bytes to
    /// fault in meanwhile (``PageWarmer``).
    static func fillColumns(
        nodeCapacity: Int, text t: UnsafeMutablePointer<UInt8>, textCapacity: Int, appendFrom: Int, warm: (nodes: Int, text: Int),
        _ fill: (inout Columns) -> Bool
    ) -> FilledColumns? {
        let nodeCapacity = max(nodeCapacity, 1)
        var ok = false
        var nodes = 0
        var out = FilledColumns()
        // Each array is created at its capacity and told its count once `fill` is done; the node
        // fields are plain integers, every id below `nodes` is written by `closeContainer` or `finish`.
        out.kinds = [UInt8](unsafeUninitializedCapacity: nodeCapacity) { k, kc in
            out.parents = [Int32](unsafeUninitializedCapacity: nodeCapacity) { p, pc in
                out.firstChild = [Int32](unsafeUninitializedCapacity: nodeCapacity) { f, fc in
                    out.childCounts = [Int32](unsafeUninitializedCapacity: nodeCapacity) { c, cc in
                        out.textStarts = [UInt32](unsafeUninitializedCapacity: nodeCapacity) { s, sc in
                            out.titleLengths = [UInt32](unsafeUninitializedCapacity: nodeCapacity) { tl, tlc in
                                out.valueLengths = [UInt32](unsafeUninitializedCapacity: nodeCapacity) { vl, vlc in
                                    HugePages.advise(k)
                                    HugePages.advise(p)
                                    HugePages.advise(f)
                                    HugePages.advise(c)
                                    HugePages.advise(s)
                                    HugePages.advise(tl)
                                    HugePages.advise(vl)
                                    let warmNodes = min(warm.nodes, nodeCapacity)
                                    let warmer = PageWarmer([
                                        (UnsafeMutableRawPointer(t + appendFrom), warm.text),
                                        (UnsafeMutableRawPointer(k.baseAddress), warmNodes),
                                        (UnsafeMutableRawPointer(p.baseAddress), 4 * warmNodes),
                                        (UnsafeMutableRawPointer(f.baseAddress), 4 * warmNodes),
                                        (UnsafeMutableRawPointer(c.baseAddress), 4 * warmNodes),
                                        (UnsafeMutableRawPointer(s.baseAddress), 4 * warmNodes),
                                        (UnsafeMutableRawPointer(tl.baseAddress), 4 * warmNodes),
                                        (UnsafeMutableRawPointer(vl.baseAddress), 4 * warmNodes),
                                    ])
                                    var columns = Columns(
                                        kinds: k.baseAddress!, parents: p.baseAddress!, firstChild: f.baseAddress!,
                                        childCounts: c.baseAddress!, textStarts: s.baseAddress!, titleLengths: tl.baseAddress!,
                                        valueLengths: vl.baseAddress!, nodeCapacity: nodeCapacity, text: t,
                                        textCapacity: textCapacity, appendFrom: appendFrom)
                                    ok = fill(&columns) && columns.isComplete
                                    warmer.finish()

                                    if ok {
                                        if !columns.placedAll {
                                            columns.finish()
                                            out.shape = TreeShape(depth: columns.deepest, widest: columns.widest)
                                        }
                                        nodes = columns.nodeCount
                                        out.textCount = columns.textCount
                                    }
                                    columns.release()
                                    vlc = nodes
                                }
                                tlc = nodes
                            }
                            sc = nodes
                        }
                        cc = nodes
                    }
                    fc = nodes
                }
                pc = nodes
            }
            kc = nodes
        }
        return ok ? out : nil
    }
}
