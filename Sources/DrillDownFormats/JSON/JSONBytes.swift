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
        if let raw = rawScalar(at: offset) { return (raw.kind, text(raw.text.lowerBound, raw.text.upperBound), raw.end) }
        var p = parser(at: offset)
        return try p.readScalar()
    }

    /// `body` called with the text of the scalar at `offset` (see ``scalar(at:)``), without a copy
    /// when it needs no decoding.
    func withText<R>(ofScalarAt offset: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) throws(ParseFailure) -> R {
        if let raw = rawScalar(at: offset) { return body(UnsafeBufferPointer(rebasing: bytes[raw.text])) }
        return try scalar(at: offset).text.withUnsafeBufferPointer(body)
    }

    /// The offset after the scalar at `offset`.
    func end(ofScalarAt offset: Int) throws(ParseFailure) -> Int {
        if let raw = rawScalar(at: offset) { return raw.end }
        return try scalar(at: offset).end
    }

    /// The scalar at `offset` when it needs no decoding: a string without escapes, a number or a
    /// literal, with where its text lies (a string's without the quotes); `nil` for anything else
    /// (an escape, or input that is not valid), which ``JSONParser`` reads or reports.
    ///
    /// The lazy index reads a token per visible row and per member it checks; a parser per token
    /// made that allocation-bound (a search of a 164 MB file took 8 s).
    ///
    /// Numbers and literals are checked by stage 2's own helpers (``JSONInput``), which also want
    /// what follows to end the token; one followed by anything else goes to the parser too.
    func rawScalar(at offset: Int) -> (kind: ValueKind, text: Range<Int>, end: Int)? {
        guard offset < bytes.count, let base = bytes.baseAddress else { return nil }
        let input = JSONInput(base: base, count: bytes.count)
        switch bytes[offset] {
        case 0x22:
            guard let close = plainStringEnd(open: offset) else { return nil }
            return (.string, offset + 1 ..< close, close + 1)
        case 0x2D, 0x30 ... 0x39:
            guard let (end, real) = input.fullNumber(at: offset) else { return nil }
            return (real ? .real : .integer, offset ..< end, end)
        case 0x74:
            return input.literal(at: offset, 0x7472_7565) ? (.bool, offset ..< offset + 4, offset + 4) : nil
        case 0x66:
            return input.literal(at: offset + 1, 0x616C_7365) ? (.bool, offset ..< offset + 5, offset + 5) : nil
        case 0x6E:
            return input.literal(at: offset, 0x6E75_6C6C) ? (.null, offset ..< offset, offset + 4) : nil
        default:
            return nil
        }
    }

    /// The object member that starts at `offset` (its key's opening quote): the key unescaped and
    /// where its value starts. `afterComma` adds the note about trailing commas to a missing key.
    func member(at offset: Int, afterComma: Bool) throws(ParseFailure) -> (key: [UInt8], value: Int) {
        if let raw = rawMember(at: offset) { return (text(raw.key.lowerBound, raw.key.upperBound), raw.value) }
        var p = parser(at: offset)
        return try p.readKey(afterComma: afterComma)
    }

    /// Where the value of the member at `offset` starts (see ``member(at:afterComma:)``), its key
    /// not copied.
    func valueOffset(ofMemberAt offset: Int, afterComma: Bool) throws(ParseFailure) -> Int {
        if let raw = rawMember(at: offset) { return raw.value }
        return try member(at: offset, afterComma: afterComma).value
    }

    /// `body` called with the key of the member at `offset` (see ``member(at:afterComma:)``),
    /// without a copy when it has no escapes, and where its value starts.
    func withMember<R>(at offset: Int, afterComma: Bool, _ body: (UnsafeBufferPointer<UInt8>, Int) throws(ParseFailure) -> R) throws(ParseFailure) -> R {
        if let raw = rawMember(at: offset) { return try body(UnsafeBufferPointer(rebasing: bytes[raw.key]), raw.value) }
        let member = try member(at: offset, afterComma: afterComma)
        return try member.key.withUnsafeBufferPointer { key throws(ParseFailure) in try body(key, member.value) }
    }

    /// The member at `offset` when its key has no escapes and is followed by its colon: where the
    /// key's text lies and where the value starts; `nil` for anything else (see ``rawScalar(at:)``).
    func rawMember(at offset: Int) -> (key: Range<Int>, value: Int)? {
        guard offset < bytes.count, bytes[offset] == 0x22, let close = plainStringEnd(open: offset) else { return nil }
        let colon = skipWhitespace(from: close + 1)
        guard colon < bytes.count, bytes[colon] == 0x3A else { return nil }
        return (offset + 1 ..< close, skipWhitespace(from: colon + 1))
    }

    /// The first byte at or after `p` (before `end`) that is a quote, a backslash, a control
    /// byte or not ASCII: the end of a string's run of bytes that need no checking.
    @inline(__always)
    static func plainRun(from p: UnsafePointer<UInt8>, to end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var p = p
        while end - p >= 8 {
            let w = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            let q = w ^ (ones &* 0x22)
            let s = w ^ (ones &* 0x5C)
            let special = ((q &- ones) & ~q) | ((s &- ones) & ~s) | ((w &- ones &* 0x20) & ~w) | w
            if special & highs != 0 { break }
            p += 8
        }
        while p < end {
            let c = p.pointee
            if c == 0x22 || c == 0x5C || c < 0x20 || c >= 0x80 { break }
            p += 1
        }
        return p
    }

    /// The bytes `start ..< end`, copied inside the array's initializer. (Made with
    /// `Array(UnsafeBufferPointer(rebasing:))` and dropped unread, the array was released before
    /// the optimizer's copy into it: AddressSanitizer reported the write as a use after free.)
    func text(_ start: Int, _ end: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: end - start) { buffer, count in
            if end > start { buffer.baseAddress!.initialize(from: bytes.baseAddress! + start, count: end - start) }
            count = end - start
        }
    }

    /// The offset of the closing quote of the string opened at `open`, when it has no escape and no
    /// control byte and is valid UTF-8 (what ``JSONParser`` accepts without decoding); else `nil`.
    func plainStringEnd(open: Int) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        let end = base + bytes.count
        var p = base + open + 1
        while p < end {
            p = Self.plainRun(from: p, to: end)
            guard p < end else { return nil }
            let c = p.pointee
            if c == 0x22 { return p - base }
            if c == 0x5C || c < 0x20 { return nil }
            let n = UTF8Validation.sequenceLength(p, end)  // a byte at or above 0x80
            if n == 0 { return nil }
            p += n
        }
        return nil
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
