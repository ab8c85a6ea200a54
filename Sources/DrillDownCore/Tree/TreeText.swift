/// The bytes a tree's keys and values are slices of: an array the reader filled, or memory the
/// tree borrows from its reader (``TextRegion``, a mapped input file with the reader's decoded
/// text after it), so that a plain key or value is not copied at all.
@usableFromInline struct TreeText: Sendable {
    /// The text, when the tree owns it as an array (empty when ``region`` is set).
    @usableFromInline let bytes: [UInt8]
    /// The borrowed memory, when there is one.
    @usableFromInline let region: TextRegion?
    /// Bytes addressable by a node's text offsets (of the region: the input and the text appended after it).
    @usableFromInline let count: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        region = nil
        count = bytes.count
    }

    init(_ region: TextRegion, count: Int) {
        bytes = []
        self.region = region
        self.count = count
    }

    /// The bytes in `range`, without a copy.
    @inlinable subscript(range: Range<Int>) -> TextBytes {
        if let region { return TextBytes(region, range.lowerBound, range.count) }
        return TextBytes(bytes[range])
    }

    @inlinable func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        if let region { return try withExtendedLifetime(region) { try body(UnsafeBufferPointer(start: region.base, count: count)) } }
        return try bytes.withUnsafeBufferPointer(body)
    }
}

/// Memory a tree's text lives in without being its own array: `count` readable bytes at `base`,
/// which `owner` keeps mapped until the last tree and ``TextBytes`` using it are gone.
///
/// The JSON reader lends a mapped file this way: plain keys and values are slices of the file,
/// and the few it must decode (escapes) are written after the file in the same region.
public final class TextRegion: @unchecked Sendable {
    /// The first byte.
    public let base: UnsafePointer<UInt8>
    /// Bytes readable from ``base``.
    public let count: Int
    /// What frees the memory when it is released (a mapping, a buffer).
    let owner: AnyObject & Sendable

    /// A region of `count` bytes at `base`, which stay readable and unchanged while `owner` lives.
    public init(base: UnsafePointer<UInt8>, count: Int, owner: AnyObject & Sendable) {
        self.base = base
        self.count = count
        self.owner = owner
    }
}

/// The UTF-8 bytes of one key or value of a tree (``TreeStore/keyBytes(of:)``), read in place:
/// a slice of the tree's text or of an edited node's bytes, kept alive as long as this value.
public struct TextBytes: RandomAccessCollection, Hashable, Sendable {
    @usableFromInline enum Storage: Sendable {
        case array(ArraySlice<UInt8>)
        case region(TextRegion, Int)
    }

    @usableFromInline let storage: Storage
    /// The number of bytes.
    public let count: Int

    /// The bytes of `slice`.
    @inlinable public init(_ slice: ArraySlice<UInt8>) {
        storage = .array(slice)
        count = slice.count
    }

    /// The bytes of `array`.
    @inlinable public init(_ array: [UInt8]) { self.init(array[...]) }

    /// `count` bytes of `region` from `start`.
    @inlinable init(_ region: TextRegion, _ start: Int, _ count: Int) {
        storage = .region(region, start)
        self.count = count
    }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    @inlinable public subscript(i: Int) -> UInt8 {
        precondition(i >= 0 && i < count, "index out of range")
        switch storage {
        case .array(let slice): return slice[slice.startIndex + i]
        case .region(let region, let start): return region.base[start + i]
        }
    }

    /// Calls `body` with the bytes in contiguous memory (always available).
    @inlinable public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        switch storage {
        case .array(let slice): return try slice.withUnsafeBufferPointer(body)
        case .region(let region, let start):
            return try withExtendedLifetime(region) { try body(UnsafeBufferPointer(start: region.base + start, count: count)) }
        }
    }

    /// Iterates through a pointer (a slice of the text or the edited node's array), not the subscript.
    @inlinable public func makeIterator() -> Iterator {
        switch storage {
        case .array(let slice): return Iterator(slice: slice.makeIterator(), region: nil, position: 0, end: 0)
        case .region(let region, let start): return Iterator(slice: nil, region: region, position: start, end: start + count)
        }
    }

    /// The iterator of ``TextBytes``.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var slice: ArraySlice<UInt8>.Iterator?
        @usableFromInline let region: TextRegion?
        @usableFromInline var position: Int
        @usableFromInline let end: Int

        @inlinable init(slice: ArraySlice<UInt8>.Iterator?, region: TextRegion?, position: Int, end: Int) {
            self.slice = slice
            self.region = region
            self.position = position
            self.end = end
        }

        @inlinable public mutating func next() -> UInt8? {
            if let region {
                guard position < end else { return nil }
                defer { position += 1 }
                return region.base[position]
            }
            return slice!.next()
        }
    }

    @inlinable public func withContiguousStorageIfAvailable<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        try withUnsafeBufferPointer(body)
    }

    @inlinable public static func == (a: TextBytes, b: TextBytes) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.elementsEqual(y) } }
    }

    public func hash(into hasher: inout Hasher) {
        withUnsafeBufferPointer { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
