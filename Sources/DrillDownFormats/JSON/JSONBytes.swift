import DrillDownCore

/// Token reading at arbitrary offsets of a whole JSON text, for the lazy index: whitespace,
/// object keys and scalars, each checked as ``JSONParser`` checks them and failing with its
/// messages (a ``ParseFailure`` at the byte offset, turned into a line and column when reported).
struct JSONBytes {
    let bytes: UnsafeBufferPointer<UInt8>

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// The first offset at or after `i` that is not JSON whitespace (the count at the end).
    @inline(__always)
    func skipWhitespace(from i: Int) -> Int {
        var i = i
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return i }
            i += 1
        }
        return i
    }

    /// A parser whose cursor is at `offset`.
    func parser(at offset: Int) -> JSONParser { JSONParser(base: bytes.baseAddress!, count: bytes.count, at: offset) }

    /// The scalar that starts at `offset`: its kind, its text (strings unescaped, numbers as
    /// written) and the offset after it.
    func scalar(at offset: Int) throws(ParseFailure) -> (kind: ValueKind, text: [UInt8], end: Int) {
        var p = parser(at: offset)
        return try p.readScalar()
    }

    /// The object member that starts at `offset` (its key's opening quote): the key unescaped and
    /// where its value starts. `afterComma` adds the note about trailing commas to a missing key.
    func member(at offset: Int, afterComma: Bool) throws(ParseFailure) -> (key: [UInt8], value: Int) {
        var p = parser(at: offset)
        return try p.readKey(afterComma: afterComma)
    }

    /// Checks that the value ending at `end` is followed by the separator or closing bracket at
    /// `next` (whitespace between is fine).
    func expectNext(after end: Int, at next: Int, inObject: Bool) throws(ParseFailure) {
        let i = skipWhitespace(from: end)
        guard i != next else { return }
        let expected = inObject ? "',' or '}' after object member" : "',' or ']' after array element"
        throw ParseFailure(offset: i, "expected \(expected), found \(SourceLocation.describe(i, in: bytes))")
    }

    /// The kind of the value starting at `offset`, from its first byte (numbers as `.integer`
    /// until read: ``scalar(at:)`` tells `.real`).
    func roughKind(at offset: Int) -> ValueKind? {
        guard offset < bytes.count else { return nil }
        switch bytes[offset] {
        case 0x7B: return .object
        case 0x5B: return .array
        case 0x22: return .string
        case 0x74, 0x66: return .bool
        case 0x6E: return .null
        case 0x2D, 0x30 ... 0x39: return .integer
        default: return nil
        }
    }
}

extension JSONParser {
    /// A parser of single tokens of the whole text at `base`, its cursor at `offset` (no tree is built).
    init(base: UnsafePointer<UInt8>, count: Int, at offset: Int) {
        self.base = base
        end = base + count
        p = base + offset
        builder = TreeBuilder()
    }

    /// Reads the scalar at the cursor (see ``JSONBytes/scalar(at:)``).
    mutating func readScalar() throws(ParseFailure) -> (kind: ValueKind, text: [UInt8], end: Int) {
        guard p < end else { throw failure(at: p, "expected a value, found end of input") }
        builder.beginNode()
        builder.endKey()
        let kind: ValueKind
        switch p.pointee {
        case 0x22:
            p += 1
            try scanString()
            kind = .string
        case 0x2D, 0x30 ... 0x39:
            try scanNumber()
            kind = builder.text.contains(where: { $0 == 0x2E || $0 | 0x20 == 0x65 }) ? .real : .integer
        case 0x74:
            try scanLiteral("true", 0x74_72_75_65, kind: .bool)
            kind = .bool
        case 0x66:
            try scanLiteral("false", 0x66_61_6C_73, kind: .bool)
            kind = .bool
        case 0x6E:
            try scanLiteral("null", 0x6E_75_6C_6C, kind: .null)
            kind = .null
        default:
            throw failure(at: p, "expected a value, found \(found(p))" + trailingCommaNote())
        }
        return (kind, builder.text, p - base)
    }

    /// Reads `"key"` and `:` at the cursor: the key unescaped and the offset of the value after it.
    mutating func readKey(afterComma: Bool) throws(ParseFailure) -> (key: [UInt8], value: Int) {
        try scanKey(afterComma: afterComma)
        return (builder.text, p - base)
    }
}
