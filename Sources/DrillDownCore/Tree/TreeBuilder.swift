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

    /// Creates a builder; `expectedNodes` and `expectedTextBytes` pre-size the arrays.
    public init(expectedNodes: Int = 0, expectedTextBytes: Int = 0) {
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
        // no memory, so only a gross over-reservation (over half unused) is worth a copy.
        func fitted<T>(_ a: [T]) -> [T] {
            guard a.capacity > 2 * a.count + 64 else { return a }
            return [T](unsafeUninitializedCapacity: a.count) { buffer, count in
                _ = a.withUnsafeBufferPointer { buffer.initialize(fromContentsOf: $0) }
                count = a.count
            }
        }
        return TreeStore(
            kinds: fitted(kinds), parents: fitted(parents), firstChild: fitted(firstChild),
            childCounts: fitted(childCounts), textStart: fitted(textStarts), titleLength: fitted(titleLengths),
            valueLength: fitted(valueLengths), text: fitted(text))
    }
}
