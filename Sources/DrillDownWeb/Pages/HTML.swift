/// HTML being written: UTF-8 bytes in one growing buffer.
///
/// A level page's rows and its template's text are appended here, each piece a `memcpy`, and the
/// buffer becomes the response body as it is: no `String` append per piece (which checks and
/// grows the string's storage each time) and no conversion at the end. Escaping works on the
/// bytes: `& < > " '` are ASCII, which UTF-8 never uses inside a multi-byte character.
struct HTML: Sendable, CustomStringConvertible {
    /// The UTF-8 bytes written so far.
    private(set) var bytes: [UInt8] = []

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// `text` as it is (already HTML).
    init(_ text: String) { bytes = Array(text.utf8) }

    /// The HTML as a string (for swift-mustache, which renders `{{{value}}}` with `String(describing:)`).
    var description: String { String(decoding: bytes, as: UTF8.self) }

    var isEmpty: Bool { bytes.isEmpty }

    /// Appends `text` unescaped.
    static func += (out: inout HTML, text: String) { out.append(text) }

    /// Appends `text` unescaped.
    @inline(__always)
    mutating func append(_ text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// Appends other HTML.
    mutating func append(_ other: HTML) { bytes.append(contentsOf: other.bytes) }

    /// Appends one ASCII byte.
    @inline(__always)
    mutating func append(ascii byte: UInt8) { bytes.append(byte) }

    /// Appends `n` in decimal, as `String(n)` writes it.
    mutating func append(_ n: Int) {
        if n < 0 {
            guard n != .min else { return append(String(n)) }
            bytes.append(UInt8(ascii: "-"))
            return append(-n)
        }
        if n < 10 { return bytes.append(UInt8(truncatingIfNeeded: 48 + n)) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits
        var count = 0
        var v = n
        withUnsafeMutableBytes(of: &digits) { buffer in
            while v > 0 {
                buffer[23 - count] = UInt8(truncatingIfNeeded: 48 + v % 10)
                v /= 10
                count += 1
            }
            bytes.append(contentsOf: buffer[(24 - count)...])
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
            if start < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[start ..< i])) }
            replacement.withUTF8Buffer { bytes.append(contentsOf: $0) }
            start = i + 1
        }
        if start < source.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[start...])) }
    }
}
