import DrillDownCore

/// The state of one JSON parse: a cursor over the input and the builder it fills.
struct JSONParser {
    let base: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    var p: UnsafePointer<UInt8>
    var builder: TreeBuilder
    /// Open containers, innermost last: `offset << 1 | isObject`.
    var open: [Int] = []
    /// Where the keys of the open objects start, innermost object's last; and per open container,
    /// where its keys start in this list.
    var keyOffsets: [Int] = []
    var keyMarks: [Int] = []

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        end = base + count
        p = base
        builder = TreeBuilder(expectedNodes: count / 10 + 16, expectedTextBytes: count / 2 + 16)
        open.reserveCapacity(64)
        keyMarks.reserveCapacity(64)
    }

    mutating func parse() throws(ParseFailure) -> TreeStore {
        if end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF { p += 3 }
        skipWhitespace()
        if p == end { throw failure(at: p, "empty document; expected a JSON value") }
        builder.beginNode()
        builder.endKey()
        var inObject = false
        value: while true {
            guard p < end else { throw failure(at: p, "expected a value, found end of input" + openNote()) }
            switch p.pointee {
            case 0x22:
                p += 1
                try scanString()
                builder.finishScalar(.string)
            case 0x7B:
                try push(isObject: true)
                builder.openContainer(.object)
                p += 1
                skipWhitespace()
                if p < end && p.pointee == 0x7D {
                    p += 1
                    inObject = try pop()
                } else {
                    inObject = true
                    try scanKey(afterComma: false)
                    continue value
                }
            case 0x5B:
                try push(isObject: false)
                builder.openContainer(.array)
                p += 1
                skipWhitespace()
                if p < end && p.pointee == 0x5D {
                    p += 1
                    inObject = try pop()
                } else {
                    inObject = false
                    builder.beginNode()
                    builder.endKey()
                    continue value
                }
            case 0x2D, 0x30 ... 0x39:
                try scanNumber()
            case 0x74:
                try scanLiteral("true", 0x74_72_75_65, kind: .bool)
            case 0x66:
                try scanLiteral("false", 0x66_61_6C_73, kind: .bool)
            case 0x6E:
                try scanLiteral("null", 0x6E_75_6C_6C, kind: .null)
            default:
                throw failure(at: p, "expected a value, found \(found(p))" + trailingCommaNote())
            }
            while !open.isEmpty {
                skipWhitespace()
                guard p < end else {
                    let expected = inObject ? "',' or '}' after object member" : "',' or ']' after array element"
                    throw failure(at: p, "expected \(expected), found end of input" + openNote())
                }
                let c = p.pointee
                if c == 0x2C {
                    p += 1
                    skipWhitespace()
                    if inObject {
                        try scanKey(afterComma: true)
                    } else {
                        builder.beginNode()
                        builder.endKey()
                    }
                    continue value
                }
                if c == (inObject ? 0x7D : 0x5D) {
                    p += 1
                    inObject = try pop()
                    continue
                }
                let expected = inObject ? "',' or '}' after object member" : "',' or ']' after array element"
                throw failure(at: p, "expected \(expected), found \(found(p))")
            }
            break
        }
        skipWhitespace()
        if p < end {
            throw failure(at: p, "unexpected \(found(p)) after the top-level value; expected end of input")
        }
        guard builder.text.count < Int(UInt32.max) else {
            throw failure(at: base, "document too large: more than 4 GiB of text")
        }
        return builder.build()
    }

    // MARK: Containers

    @inline(__always)
    mutating func push(isObject: Bool) throws(ParseFailure) {
        guard open.count < JSONReader.maxDepth else {
            throw failure(at: p, "nesting deeper than \(JSONReader.maxDepth) levels")
        }
        open.append((p - base) << 1 | (isObject ? 1 : 0))
        keyMarks.append(keyOffsets.count)
    }

    /// Closes the innermost container (refusing an object with a duplicate key); returns whether
    /// the new innermost one is an object.
    @inline(__always)
    mutating func pop() throws(ParseFailure) -> Bool {
        let closed = open.removeLast()
        let mark = keyMarks.removeLast()
        if closed & 1 == 1, keyOffsets.count - mark > 1, let (later, earlier) = builder.duplicateKeyInOpenContainer() {
            throw ParseFailure.duplicateKey(
                builder.keyInOpenContainer(later), at: keyOffsets[mark + later], earlier: keyOffsets[mark + earlier], in: "object",
                bytes: UnsafeBufferPointer(start: base, count: end - base))
        }
        keyOffsets.removeSubrange(mark...)
        builder.closeContainer()
        return (open.last ?? 0) & 1 == 1
    }

    // MARK: Tokens

    /// Skips whitespace; after a newline, indentation is skipped eight spaces at a time.
    @inline(__always)
    mutating func skipWhitespace() {
        while p < end {
            let c = p.pointee
            if c > 0x20 { return }
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            p += 1
            if c == 0x0A {
                while end - p >= 8 && UnsafeRawPointer(p).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 { p += 8 }
            }
        }
    }

    /// Reads `"key"` and `:` for an object member, leaving the cursor at its value.
    @inline(__always)
    mutating func scanKey(afterComma: Bool) throws(ParseFailure) {
        guard p < end, p.pointee == 0x22 else {
            let note = afterComma && p < end && p.pointee == 0x7D ? " (trailing commas are not allowed)" : ""
            throw failure(at: p, "expected '\"' to begin an object key, found \(found(p))" + (p == end ? openNote() : note))
        }
        keyOffsets.append(p - base)
        p += 1
        builder.beginNode()
        try scanString()
        builder.endKey()
        skipWhitespace()
        guard p < end, p.pointee == 0x3A else {
            throw failure(at: p, "expected ':' after object key, found \(found(p))")
        }
        p += 1
        skipWhitespace()
    }

    /// Reads a string's contents after its opening quote into the builder's text, decoding escapes.
    @inline(__always)
    mutating func scanString() throws(ParseFailure) {
        let opening = p - 1
        var start = p
        while true {
            p = JSONBytes.plainRun(from: p, to: end)
            guard p < end else {
                throw failure(at: opening, "unterminated string; expected '\"' before end of input")
            }
            let c = p.pointee
            if c == 0x22 {
                builder.appendText(UnsafeBufferPointer(start: start, count: p - start))
                p += 1
                return
            }
            if c >= 0x80 {
                let n = UTF8Validation.sequenceLength(p, end)
                if n == 0 { throw failure(at: p, "invalid UTF-8 byte 0x\(String(c, radix: 16, uppercase: true)) in string") }
                p += n
                continue
            }
            if c < 0x20 {
                if c == 0x0A || c == 0x0D {
                    throw failure(at: p, "unescaped line break in string; expected '\"' to close the string opened at \(location(opening))")
                }
                throw failure(at: p, "unescaped control character U+\(hex4(UInt32(c))) in string; write it as \\u\(hex4(UInt32(c)))")
            }
            builder.appendText(UnsafeBufferPointer(start: start, count: p - start))
            try scanEscape()
            start = p
        }
    }

    /// Decodes one escape sequence at the cursor (a backslash) into the builder's text.
    mutating func scanEscape() throws(ParseFailure) {
        let escape = p
        p += 1
        guard p < end else { throw failure(at: escape, "unterminated string; expected '\"' before end of input") }
        let c = p.pointee
        p += 1
        switch c {
        case 0x22, 0x5C, 0x2F: builder.appendText(c)
        case 0x62: builder.appendText(0x08)
        case 0x66: builder.appendText(0x0C)
        case 0x6E: builder.appendText(0x0A)
        case 0x72: builder.appendText(0x0D)
        case 0x74: builder.appendText(0x09)
        case 0x75:
            var scalar = try scanHex4(escape)
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                guard end - p >= 2, p[0] == 0x5C, p[1] == 0x75 else {
                    throw failure(at: escape, "unpaired surrogate \\u\(hex4(scalar)); expected a low surrogate \\uDC00-\\uDFFF to follow")
                }
                let second = p
                p += 2
                let low = try scanHex4(second)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw failure(at: second, "expected a low surrogate \\uDC00-\\uDFFF after \\u\(hex4(scalar)), found \\u\(hex4(low))")
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw failure(at: escape, "unpaired low surrogate \\u\(hex4(scalar))")
            }
            UTF8Validation.append(scalar, to: &builder.text)
        default:
            throw failure(at: escape, "invalid escape \\\(found(p - 1).trimmingQuotes); expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
        }
    }

    mutating func scanHex4(_ escape: UnsafePointer<UInt8>) throws(ParseFailure) -> UInt32 {
        var v: UInt32 = 0
        for i in 0 ..< 4 {
            guard p + i < end else { throw failure(at: p + i, "expected 4 hex digits after \\u, found end of input") }
            let c = p[i]
            let d: UInt8
            switch c {
            case 0x30 ... 0x39: d = c - 0x30
            case 0x41 ... 0x46: d = c - 0x37
            case 0x61 ... 0x66: d = c - 0x57
            default: throw failure(at: p + i, "expected 4 hex digits after \\u, found \(found(p + i))")
            }
            v = v << 4 | UInt32(d)
        }
        p += 4
        return v
    }

    @inline(__always)
    mutating func scanNumber() throws(ParseFailure) {
        let start = p
        if p.pointee == 0x2D { p += 1 }
        guard p < end, isDigit(p.pointee) else {
            throw failure(at: p, "expected a digit after '-', found \(found(p))")
        }
        if p.pointee == 0x30 {
            p += 1
            if p < end && isDigit(p.pointee) { throw failure(at: start, "leading zeros are not allowed in numbers") }
        } else {
            while p < end && isDigit(p.pointee) { p += 1 }
        }
        var real = false
        if p < end && p.pointee == 0x2E {
            real = true
            p += 1
            guard p < end, isDigit(p.pointee) else {
                throw failure(at: p, "expected a digit after '.' in number, found \(found(p))")
            }
            while p < end && isDigit(p.pointee) { p += 1 }
        }
        if p < end && (p.pointee | 0x20) == 0x65 {
            real = true
            p += 1
            if p < end && (p.pointee == 0x2B || p.pointee == 0x2D) { p += 1 }
            guard p < end, isDigit(p.pointee) else {
                throw failure(at: p, "expected a digit in the exponent, found \(found(p))")
            }
            while p < end && isDigit(p.pointee) { p += 1 }
        }
        builder.appendText(UnsafeBufferPointer(start: start, count: p - start))
        builder.finishScalar(real ? .real : .integer)
    }

    @inline(__always)
    func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }

    /// Reads `true`, `false` or `null`; `word` is the literal's first four bytes, big-endian.
    @inline(__always)
    mutating func scanLiteral(_ literal: StaticString, _ word: UInt32, kind: ValueKind) throws(ParseFailure) {
        let n = literal.utf8CodeUnitCount
        var ok = end - p >= n
        if ok {
            let head = UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
            ok = head == word && (n == 4 || p[4] == 0x65)
        }
        guard ok else {
            throw failure(at: p, "invalid literal; expected '\(literal)' (or a string, number, object or array)")
        }
        if kind != .null { builder.appendText(UnsafeBufferPointer(start: p, count: n)) }
        p += n
        builder.finishScalar(kind)
    }

    // MARK: Messages

    func failure(at position: UnsafePointer<UInt8>, _ message: String) -> ParseFailure {
        ParseFailure(offset: position - base, message)
    }

    func found(_ position: UnsafePointer<UInt8>) -> String {
        SourceLocation.describe(position - base, in: UnsafeBufferPointer(start: base, count: end - base))
    }

    func location(_ position: UnsafePointer<UInt8>) -> String {
        SourceLocation.text(of: position - base, in: UnsafeBufferPointer(start: base, count: end - base))
    }

    /// ` to close the object opened at 1:1`, naming the innermost open container.
    func openNote() -> String {
        guard let last = open.last else { return "" }
        let what = last & 1 == 1 ? "'}' to close the object" : "']' to close the array"
        return "; expected \(what) opened at \(location(base + (last >> 1)))"
    }

    /// ` (trailing commas are not allowed)` when the previous token was a comma.
    func trailingCommaNote() -> String {
        var q = p
        while q > base {
            q -= 1
            let c = q.pointee
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { continue }
            return c == 0x2C && (p.pointee == 0x5D || p.pointee == 0x7D) ? " (trailing commas are not allowed)" : ""
        }
        return ""
    }

    func hex4(_ v: UInt32) -> String {
        let digits = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
