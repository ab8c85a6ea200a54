import DrillDownCore

/// What the writers append bytes to: an array (the patchers' fragments) or a ``WriterOutput``,
/// which passes them on in bounded chunks and can count them without keeping them.
protocol ByteSink {
    mutating func append(_ byte: UInt8)
    mutating func append<S: Sequence<UInt8>>(contentsOf bytes: S)
    /// Appends `count` copies of `byte` (indentation: the part of an output that grows with depth).
    mutating func append(repeating byte: UInt8, count: Int)
}

extension ByteSink {
    /// Appends an ASCII literal.
    @inline(__always)
    mutating func append(ascii literal: StaticString) {
        literal.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends the decimal digits of `value`.
    mutating func append(decimal value: Int) {
        append(contentsOf: String(value).utf8)
    }
}

extension Array: ByteSink where Element == UInt8 {
    /// Appends `count` copies of `byte`.
    @inline(__always)
    mutating func append(repeating byte: UInt8, count: Int) {
        append(contentsOf: repeatElement(byte, count: count))
    }
}

/// Bytes of text the writers take: a key or value of a tree (``TextBytes``), a part of one, or an array slice.
protocol ByteText: RandomAccessCollection<UInt8> where Index == Int {}
extension ArraySlice<UInt8>: ByteText {}
extension TextBytes: ByteText {}
extension Slice<TextBytes>: ByteText {}

/// Text checks shared by the writers.
enum ScalarText {
    /// Whether `bytes` is a JSON number literal (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`).
    static func isJSONNumber(_ bytes: some ByteText) -> Bool {
        var i = bytes.startIndex
        let end = bytes.endIndex
        func digits() -> Int {
            let start = i
            while i < end, bytes[i] >= 0x30 && bytes[i] <= 0x39 { i += 1 }
            return i - start
        }
        if i < end, bytes[i] == 0x2D { i += 1 }
        guard i < end else { return false }
        if bytes[i] == 0x30 {
            i += 1
        } else if digits() == 0 {
            return false
        }
        if i < end, bytes[i] == 0x2E {
            i += 1
            if digits() == 0 { return false }
        }
        if i < end, bytes[i] | 0x20 == 0x65 {
            i += 1
            if i < end, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
            if digits() == 0 { return false }
        }
        return i == end
    }

    /// Whether `bytes` is an optionally signed run of decimal digits.
    static func isDecimalInteger(_ bytes: some ByteText) -> Bool {
        var i = bytes.startIndex
        if i < bytes.endIndex, bytes[i] == 0x2D || bytes[i] == 0x2B { i += 1 }
        guard i < bytes.endIndex else { return false }
        return bytes[i...].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// Whether a real's text lacks a fraction or exponent (so `1` must be written `1.0` to stay a real).
    static func needsFraction(_ bytes: some ByteText) -> Bool {
        !bytes.contains { $0 == 0x2E || $0 | 0x20 == 0x65 || $0 | 0x20 == 0x6E || $0 | 0x20 == 0x69 }
    }

    /// The value of a real's text, accepting the spellings the readers produce (`inf`, `-inf`, `nan`).
    static func double(_ bytes: some ByteText) -> Double? {
        Double(String(decoding: bytes, as: UTF8.self))
    }

    /// Whether a bool's text means true.
    static func isTrue(_ bytes: some ByteText) -> Bool {
        Scalar(.bool, String(decoding: bytes, as: UTF8.self)).bool ?? false
    }
}
