import NIOCore

/// HTML being written: UTF-8 bytes in one growing buffer.
///
/// A level page's rows and its template's text are appended here, each piece a `memcpy`, and the
/// buffer becomes the response body as it is: no `String` append per piece (which checks and
/// grows the string's storage each time), no conversion and no copy at the end (the buffer is
/// NIO's own `ByteBuffer`, which the server writes to the socket). Escaping works on the bytes:
/// `& < > " '` are ASCII, which UTF-8 never uses inside a multi-byte character.
struct HTML: Sendable, CustomStringConvertible {
    /// The UTF-8 bytes written so far.
    private(set) var buffer: ByteBuffer

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int = 0) { buffer = ByteBufferAllocator().buffer(capacity: capacity) }

    /// `text` as it is (already HTML).
    init(_ text: String) { buffer = ByteBuffer(string: text) }

    /// The bytes of `buffer` (shared, not copied).
    init(buffer: ByteBuffer) { self.buffer = buffer }

    /// The HTML as a string (for swift-mustache, which renders `{{{value}}}` with `String(describing:)`).
    var description: String { String(buffer: buffer) }

    var isEmpty: Bool { buffer.readableBytes == 0 }

    /// The number of bytes written.
    var count: Int { buffer.readableBytes }

    /// Appends `text` unescaped.
    static func += (out: inout HTML, text: String) { out.append(text) }

    /// Appends `text` unescaped.
    @inline(__always)
    mutating func append(_ text: String) {
        buffer.writeString(text)
    }

    /// Appends other HTML.
    mutating func append(_ other: HTML) { buffer.writeImmutableBuffer(other.buffer) }

    /// Appends a literal unescaped: its bytes are copied straight from the binary, without the
    /// checks a `String`'s storage needs (the rows' fixed markup).
    @inline(__always)
    mutating func write(_ literal: StaticString) {
        buffer.writeStaticString(literal)
    }

    /// Appends one ASCII byte.
    @inline(__always)
    mutating func append(ascii byte: UInt8) { buffer.writeInteger(byte) }

    /// Appends `n` in decimal, as `String(n)` writes it.
    mutating func append(_ n: Int) {
        if n < 0 {
            guard n != .min else { return append(String(n)) }
            buffer.writeInteger(UInt8(ascii: "-"))
            return append(-n)
        }
        if n < 10 {
            buffer.writeInteger(UInt8(truncatingIfNeeded: 48 + n))
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
            buffer.writeBytes(UnsafeRawBufferPointer(start: scratch.baseAddress! + (24 - count), count: count))
        }
    }

    /// Appends `text` with `& < > " '` escaped, as Mustache's `{{value}}` does.
    mutating func appendEscaped(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ appendEscaped(bytes: $0) }) == nil {
            let copy = Array(text.utf8)
            copy.withUnsafeBufferPointer { appendEscaped(bytes: $0) }
        }
    }

    private mutating func appendEscaped(bytes source: UnsafeBufferPointer<UInt8>) {
        var start = 0
        for i in source.indices {
            let replacement: StaticString
            switch source[i] {
            case 38: replacement = "&amp;"
            case 60: replacement = "&lt;"
            case 62: replacement = "&gt;"
            case 34: replacement = "&quot;"
            case 39: replacement = "&#39;"
            default: continue
            }
            if start < i { buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source)[start ..< i])) }
            buffer.writeStaticString(replacement)
            start = i + 1
        }
        if start < source.count { buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(source)[start...])) }
    }
}
