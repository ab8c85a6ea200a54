import NIOCore

/// HTML being written: UTF-8 bytes in one growing buffer.
///
/// A level page's rows and its template's text are appended here, each piece a `memcpy`: no
/// `String` append per piece (which checks and grows the string's storage each time). The bytes
/// live in memory of this type's own (``Storage``) rather than NIO's `ByteBuffer` or an
/// `[UInt8]`: each `ByteBuffer` write paid a dynamic exclusivity check and a capacity check
/// through a class, each array append some 80 instructions of generic bookkeeping, and a
/// first-time level page makes about 1 500 writes. Here a write is a uniqueness check (copies of
/// an `HTML` value share its storage until one of them writes), a bounds check and the copy.
/// ``buffer`` copies the bytes out once, for the response. Escaping works on the bytes:
/// `& < > " '` are ASCII, which UTF-8 never uses inside a multi-byte character.
struct HTML: Sendable, CustomStringConvertible {
    /// The memory holding the bytes; freed with the last `HTML` value that holds it.
    private final class Storage: @unchecked Sendable {
        let base: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            self.capacity = Swift.max(capacity, 64)
            base = .allocate(capacity: self.capacity)
        }

        deinit { base.deallocate() }
    }

    private var storage: Storage
    /// The number of bytes written.
    private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int = 0) { storage = Storage(capacity: capacity) }

    /// `text` as it is (already HTML).
    init(_ text: String) {
        storage = Storage(capacity: text.utf8.count)
        append(text)
    }

    /// The bytes written so far (valid while this value is not changed).
    private var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage.base, count: count) }

    /// The bytes as a buffer to send (a copy).
    var buffer: ByteBuffer { ByteBuffer(bytes: written) }

    /// The memory the bytes hold (their capacity: a page is written into room to spare).
    var capacity: Int { storage.capacity }

    /// The HTML as a string (for swift-mustache, which renders `{{{value}}}` with `String(describing:)`).
    var description: String { String(decoding: written, as: UTF8.self) }

    var isEmpty: Bool { count == 0 }

    /// Appends `text` unescaped.
    static func += (out: inout HTML, text: String) { out.append(text) }

    /// Appends `text` unescaped.
    @inline(__always)
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(raw: UnsafeRawBufferPointer($0)) }
    }

    /// Appends other HTML.
    mutating func append(_ other: HTML) { append(raw: other.written) }

    /// Appends a literal unescaped: its bytes are copied straight from the binary, without the
    /// checks a `String`'s storage needs (the rows' fixed markup).
    @inline(__always)
    mutating func write(_ literal: StaticString) {
        append(raw: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Appends a copy of bytes already written, at `range` of this buffer (a row's path shows
    /// four times in its markup: written once, copied three times).
    mutating func appendWritten(_ range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "not written yet")
        reserve(range.count)
        (storage.base + count).update(from: storage.base + range.lowerBound, count: range.count)
        count += range.count
    }

    /// Appends one ASCII byte.
    @inline(__always)
    mutating func append(ascii byte: UInt8) {
        reserve(1)
        storage.base[count] = byte
        count += 1
    }

    /// Appends `raw` as it is.
    @inline(__always)
    private mutating func append(raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress else { return }
        reserve(raw.count)
        (storage.base + count).update(from: source.assumingMemoryBound(to: UInt8.self), count: raw.count)
        count += raw.count
    }

    /// Makes room for `n` more bytes in storage this value alone holds.
    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if count + n > storage.capacity || !isKnownUniquelyReferenced(&storage) { grow(n) }
    }

    /// Moves the bytes to new storage with room for `n` more (at least twice the old room when full).
    private mutating func grow(_ n: Int) {
        let needed = count + n
        let new = Storage(capacity: needed > storage.capacity ? Swift.max(needed, storage.capacity * 2) : storage.capacity)
        new.base.update(from: storage.base, count: count)
        storage = new
    }

    /// Appends `n` in decimal, as `String(n)` writes it.
    mutating func append(_ n: Int) {
        if n < 0 {
            guard n != .min else { return append(String(n)) }
            append(ascii: UInt8(ascii: "-"))
            return append(-n)
        }
        if n < 10 {
            append(ascii: UInt8(truncatingIfNeeded: 48 + n))
            return
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits
        var count = 0
        var v = n
        withUnsafeMutableBytes(of: &digits) { scratch in
            while v > 0 {
                scratch[23 - count] = UInt8(truncatingIfNeeded: 48 + v % 10)
                v /= 10
                count += 1
            }
            // Through a pointer: an append of the raw buffer's slice went byte by byte.
            append(raw: UnsafeRawBufferPointer(start: scratch.baseAddress! + (24 - count), count: count))
        }
    }

    /// Appends `text` with `& < > " '` escaped, as Mustache's `{{value}}` does.
    mutating func appendEscaped(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ appendEscaped(bytes: $0) }) == nil {
            let copy = Array(text.utf8)
            copy.withUnsafeBufferPointer { appendEscaped(bytes: $0) }
        }
    }

    /// The bytes ``appendEscaped(_:)`` replaces, `" & ' < >` (34, 38, 39, 60 and 62), one bit
    /// each: a byte is tested with a shift rather than five comparisons.
    private static var escapedBytes: UInt64 { 1 << 34 | 1 << 38 | 1 << 39 | 1 << 60 | 1 << 62 }

    private mutating func appendEscaped(bytes source: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for i in source.indices {
            let byte = source[i]
            guard byte < 64, Self.escapedBytes & (1 &<< UInt64(byte)) != 0 else { continue }
            let replacement: StaticString
            switch byte {
            case 38: replacement = "&amp;"
            case 60: replacement = "&lt;"
            case 62: replacement = "&gt;"
            case 34: replacement = "&quot;"
            case 39: replacement = "&#39;"
            default: continue
            }
            if start < i { append(raw: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source)[start ..< i])) }
            write(replacement)
            start = i + 1
        }
        if start < source.count { append(raw: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source)[start...])) }
    }
}
