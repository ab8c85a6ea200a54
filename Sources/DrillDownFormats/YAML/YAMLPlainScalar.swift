/// The YAML 1.1 type of a plain (unquoted, untagged) scalar, decided the way Yams' default
/// resolver decides it — `bool`, `int`, `float`, merge, `null`, `timestamp`, in that order — but
/// with hand-written matchers instead of one regular expression per scalar.
enum YAMLPlainScalar: Equatable {
    case null, bool(Bool), int, float, timestamp, merge, string

    /// Whether the plain scalar `text` can resolve to anything but a string, decided from its
    /// bytes: every typed spelling starts with a digit, `+`, `-` or `.`, or is one of the words
    /// of ``resolve(_:)`` (`yes`, `Off`, `~`, `<<`, `NULL`…).
    static func mayBeTyped(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = text.first else { return true }
        switch first {
        case 0x30 ... 0x39, 0x2B, 0x2D, 0x2E: return true
        default:
            guard text.count <= 5 else { return false }
            var packed: UInt64 = 0
            for byte in text { packed = packed << 8 | UInt64(byte) }
            return words.contains(packed)
        }
    }

    /// The typed words of ``resolve(_:)``, each packed big-endian into an integer (no word holds
    /// a zero byte, so words of different lengths never pack alike).
    private static let words: [UInt64] = [
        "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON", "no", "No", "NO", "false", "False", "FALSE",
        "off", "Off", "OFF", "<<", "~", "null", "Null", "NULL",
    ].map { $0.utf8.reduce(0) { $0 << 8 | UInt64($1) } }

    /// The type of the plain scalar `text`.
    static func resolve(_ text: String) -> YAMLPlainScalar {
        switch text {
        case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON": return .bool(true)
        case "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF": return .bool(false)
        case "<<": return .merge
        case "", "~", "null", "Null", "NULL": return .null
        default: break
        }
        let first = text.utf8.first!
        guard (first >= 0x30 && first <= 0x39) || first == 0x2B || first == 0x2D || first == 0x2E else { return .string }
        let b = Array(text.utf8)
        if isInt(b) { return .int }
        if isFloat(b) { return .float }
        if isTimestamp(b) { return .timestamp }
        return .string
    }

    /// A cursor over the scalar's bytes.
    private struct Cursor {
        let b: [UInt8]
        var i = 0
        var atEnd: Bool { i == b.count }
        var peek: UInt8? { i < b.count ? b[i] : nil }

        mutating func take(_ c: UInt8) -> Bool {
            guard peek == c else { return false }
            i += 1
            return true
        }

        mutating func takeSign() { if peek == 0x2B || peek == 0x2D { i += 1 } }

        /// Consumes bytes while `match` holds; returns how many.
        @discardableResult
        mutating func run(_ match: (UInt8) -> Bool) -> Int {
            let start = i
            while let c = peek, match(c) { i += 1 }
            return i - start
        }

        /// Consumes between `min` and `max` decimal digits, or nothing.
        mutating func digits(_ min: Int, _ max: Int) -> Bool {
            let start = i
            while i - start < max, let c = peek, isDigit(c) { i += 1 }
            if i - start < min {
                i = start
                return false
            }
            return true
        }
    }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
    private static func isDigitOrUnderscore(_ c: UInt8) -> Bool { isDigit(c) || c == 0x5F }

    /// `[-+]?0b[0-1_]+ | [-+]?0o?[0-7_]+ | [-+]?(0|[1-9][0-9_]*) | [-+]?0x[0-9a-fA-F_]+ | [-+]?[1-9][0-9_]*(:[0-5]?[0-9])+`
    static func isInt(_ b: [UInt8]) -> Bool {
        var c = Cursor(b: b)
        c.takeSign()
        let body = c.i
        if c.take(0x30) {
            if c.atEnd { return true }
            if c.take(0x62) { return c.run { $0 == 0x30 || $0 == 0x31 || $0 == 0x5F } > 0 && c.atEnd }
            if c.take(0x78) {
                return c.run { isDigit($0) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) || $0 == 0x5F } > 0 && c.atEnd
            }
            _ = c.take(0x6F)
            return c.run { ($0 >= 0x30 && $0 <= 0x37) || $0 == 0x5F } > 0 && c.atEnd
        }
        c.i = body
        guard let first = c.peek, first >= 0x31 && first <= 0x39 else { return false }
        c.run(isDigitOrUnderscore)
        if c.atEnd { return true }
        return sexagesimalTail(&c) && c.atEnd
    }

    /// `(:[0-5]?[0-9])+`
    private static func sexagesimalTail(_ c: inout Cursor) -> Bool {
        var groups = 0
        while c.take(0x3A) {
            guard let d1 = c.peek, isDigit(d1) else { return false }
            c.i += 1
            if let d2 = c.peek, isDigit(d2) {
                guard d1 <= 0x35 else { return false }
                c.i += 1
            }
            groups += 1
        }
        return groups > 0
    }

    /// The float patterns of the default resolver (see the type's documentation).
    static func isFloat(_ b: [UInt8]) -> Bool {
        var c = Cursor(b: b)
        // \.(nan|NaN|NAN)
        if b == Array(".nan".utf8) || b == Array(".NaN".utf8) || b == Array(".NAN".utf8) { return true }
        // \.[0-9_]+([eE][-+][0-9]+)?
        if c.take(0x2E) {
            if c.run(isDigitOrUnderscore) > 0 {
                if c.atEnd { return true }
                guard c.take(0x65) || c.take(0x45), c.take(0x2B) || c.take(0x2D) else { return false }
                return c.run(isDigit) > 0 && c.atEnd
            }
            c.i = 0
        }
        c.takeSign()
        let signed = c.i
        // [-+]?\.(inf|Inf|INF)
        if c.take(0x2E) {
            let rest = Array(b[c.i...])
            return rest == Array("inf".utf8) || rest == Array("Inf".utf8) || rest == Array("INF".utf8)
        }
        c.i = signed
        guard let first = c.peek, isDigit(first) else { return false }
        c.run(isDigitOrUnderscore)
        let afterInteger = c.i
        // [-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
        if c.peek == 0x3A {
            guard sexagesimalTail(&c), c.take(0x2E) else { return false }
            c.run(isDigitOrUnderscore)
            return c.atEnd
        }
        c.i = afterInteger
        // [-+]?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?
        if c.take(0x2E) { c.run(isDigitOrUnderscore) }
        if c.take(0x65) || c.take(0x45) {
            c.takeSign()
            guard c.run(isDigit) > 0 else { return false }
        }
        return c.atEnd
    }

    /// `YYYY-MM-DD`, or `YYYY-M-D` followed by `T` or spaces, `H:MM:SS`, an optional fraction and zone.
    static func isTimestamp(_ b: [UInt8]) -> Bool {
        var c = Cursor(b: b)
        guard c.digits(4, 4), c.take(0x2D) else { return false }
        let month = c.i
        if c.digits(2, 2), c.take(0x2D), c.digits(2, 2), c.atEnd { return true }
        c.i = month
        guard c.digits(1, 2), c.take(0x2D), c.digits(1, 2) else { return false }
        if !(c.take(0x54) || c.take(0x74)) {
            guard c.run({ $0 == 0x20 || $0 == 0x09 }) > 0 else { return false }
        }
        guard c.digits(1, 2), c.take(0x3A), c.digits(2, 2), c.take(0x3A), c.digits(2, 2) else { return false }
        if c.take(0x2E) { c.run(isDigit) }
        if c.atEnd { return true }
        c.run { $0 == 0x20 || $0 == 0x09 }
        if c.take(0x5A) { return c.atEnd }
        guard c.take(0x2B) || c.take(0x2D), c.digits(1, 2) else { return false }
        if c.take(0x3A) { guard c.digits(2, 2) else { return false } }
        return c.atEnd
    }
}
