import CDrillDownSIMD
import DrillDownCore

/// Stage 2 of the JSON reader: walks the structural positions of a ``JSONStructuralScanner``
/// and writes every value straight into the store's arrays (``TreeBuilder/Columns``).
///
/// Whitespace is never looked at (the positions skip it) and a string's closing quote is one of
/// the positions, so a string without backslashes is one copy. Numbers and literals are checked
/// byte by byte as the RFC says. It accepts exactly what ``JSONParser`` accepts and builds the
/// same tree; on anything it does not accept it returns `nil` without saying why, and the
/// caller runs ``JSONParser`` to report the error with its position (errors are rare, so the
/// exact message costs nothing on the path that matters).
struct JSONIndexedParser {
    /// The input; its helpers take only these 16 bytes, never the parser (a non-inlined call
    /// taking the parser by value made the compiler copy all of it, 136 bytes, per string and number).
    let input: JSONInput
    var scanner: JSONStructuralScanner
    /// Open containers, innermost last: whether each is an object (room for ``JSONReader/maxDepth``).
    let open: UnsafeMutablePointer<Bool>
    /// The number of open containers.
    var depth = 0

    /// The tree of `input`, or `nil` when it is not valid JSON (or too large for this path).
    static func read(_ input: UnsafeBufferPointer<UInt8>) -> TreeStore? {
        guard let base = input.baseAddress, !input.isEmpty, input.count < Int(UInt32.max) - 64 else { return nil }
        let (bound, textBytes) = counts(input)
        guard bound < Int(Int32.max) else { return nil }
        let tail = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        let open = UnsafeMutablePointer<Bool>.allocate(capacity: JSONReader.maxDepth + 1)
        defer {
            tail.deallocate()
            open.deallocate()
        }
        let start = input.count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF ? 3 : 0
        var parser = JSONIndexedParser(
            input: JSONInput(base: base, count: input.count), scanner: JSONStructuralScanner(base: base, count: input.count, start: start, tail: tail),
            open: open)
        return TreeBuilder.build(nodeCapacity: bound, textCapacity: input.count, expectedNodes: bound, expectedTextBytes: textBytes) {
            columns in
            parser.parse(&columns)
        }
    }

    /// An upper bound of the node count, and an estimate of the text bytes. Every value but the
    /// root follows a `,` or opens its container's list after a `[` or `{`, so the bound is 1 +
    /// the number of those bytes (strings included). The text is about what is left without
    /// quotes, `,:[]{}` and whitespace (exact when strings hold none of those and no escapes).
    static func counts(_ input: UnsafeBufferPointer<UInt8>) -> (nodes: Int, textBytes: Int) {
        let c = dd_json_count(input.baseAddress!, UInt64(input.count))
        return (Int(c.separators) + 1, input.count - Int(c.syntax))
    }

    mutating func parse(_ out: inout TreeBuilder.Columns) -> Bool {
        let input = self.input, base = input.base
        var pos = scanner.next()
        guard pos >= 0 else { return false }
        out.beginNode()
        out.endKey()
        var inObject = false
        value: while true {
            switch base[pos] {
            case 0x22:
                let close = scanner.next()
                guard close > pos, string(from: pos, to: close, into: &out) else { return false }
                out.finishScalar(.string)
            case 0x7B, 0x5B:
                let isObject = base[pos] == 0x7B
                guard depth < JSONReader.maxDepth else { return false }
                open[depth] = isObject
                depth += 1
                out.openContainer(isObject ? .object : .array)
                pos = scanner.next()
                guard pos >= 0 else { return false }
                if base[pos] == (isObject ? 0x7D : 0x5D) {
                    depth -= 1
                    out.closeContainer()
                    inObject = depth > 0 && open[depth - 1]
                } else {
                    inObject = isObject
                    out.beginNode()
                    if isObject {
                        guard let next = key(at: pos, into: &out) else { return false }
                        pos = next
                    } else {
                        out.endKey()
                    }
                    continue value
                }
            case 0x2D, 0x30 ... 0x39:
                guard let (end, real) = input.number(at: pos), input.copy(pos, end - pos, into: &out) else { return false }
                out.finishScalar(real ? .real : .integer)
            case 0x74:
                guard input.literal(at: pos, 0x7472_7565) else { return false }
                guard input.copy(pos, 4, into: &out) else { return false }
                out.finishScalar(.bool)
            case 0x66:
                guard input.literal(at: pos + 1, 0x616C_7365) else { return false }
                guard input.copy(pos, 5, into: &out) else { return false }
                out.finishScalar(.bool)
            case 0x6E:
                guard input.literal(at: pos, 0x6E75_6C6C) else { return false }
                out.finishScalar(.null)
            default:
                return false
            }
            while depth > 0 {
                pos = scanner.next()
                guard pos >= 0 else { return false }
                let c = base[pos]
                if c == 0x2C {
                    pos = scanner.next()
                    guard pos >= 0 else { return false }
                    out.beginNode()
                    if inObject {
                        guard let next = key(at: pos, into: &out) else { return false }
                        pos = next
                    } else {
                        out.endKey()
                    }
                    continue value
                }
                guard c == (inObject ? 0x7D : 0x5D) else { return false }
                depth -= 1
                out.closeContainer()
                inObject = depth > 0 && open[depth - 1]
            }
            break
        }
        return scanner.next() < 0 && scanner.isValid
    }

    /// Reads `"key":` whose opening quote is at `pos`; returns the position of the value.
    @inline(__always)
    mutating func key(at pos: Int, into out: inout TreeBuilder.Columns) -> Int? {
        let base = input.base
        guard base[pos] == 0x22 else { return nil }
        let close = scanner.next()
        guard close > pos, string(from: pos, to: close, into: &out) else { return nil }
        out.endKey()
        let colon = scanner.next()
        guard colon >= 0, base[colon] == 0x3A else { return nil }
        let value = scanner.next()
        return value >= 0 ? value : nil
    }

    /// Appends the decoded contents of the string quoted at `open` and `close`.
    @inline(__always)
    func string(from open: Int, to close: Int, into out: inout TreeBuilder.Columns) -> Bool {
        let input = self.input
        guard input.base[close] == 0x22 else { return false }
        if !scanner.hasBackslash(from: open, to: close) {
            return input.copy(open &+ 1, close &- open &- 1, into: &out)
        }
        return input.unescape(from: open + 1, to: close, into: &out)
    }
}

/// The bytes of a JSON input, with stage 2's byte-level helpers.
struct JSONInput {
    let base: UnsafePointer<UInt8>
    let count: Int

    /// Appends the `n` input bytes at `start`; short runs (most keys and values) with one 16-byte move, not a call to memmove.
    @inline(__always)
    func copy(_ start: Int, _ n: Int, into out: inout TreeBuilder.Columns) -> Bool {
        if n <= 16 && count &- start >= 16 { return out.appendShortText(base + start, n) }
        return out.appendText(base + start, n)
    }

    /// Decodes a string with escapes (validated as ``JSONParser/scanEscape()`` does).
    func unescape(from start: Int, to close: Int, into out: inout TreeBuilder.Columns) -> Bool {
        var i = start
        var run = start
        while i < close {
            guard base[i] == 0x5C else {
                i += 1
                continue
            }
            guard out.appendText(base + run, i - run), i + 1 < close else { return false }
            let c = base[i + 1]
            var decoded: UInt8 = 0
            switch c {
            case 0x22, 0x5C, 0x2F: decoded = c
            case 0x62: decoded = 0x08
            case 0x66: decoded = 0x0C
            case 0x6E: decoded = 0x0A
            case 0x72: decoded = 0x0D
            case 0x74: decoded = 0x09
            case 0x75:
                guard var scalar = hex4(i + 2, close) else { return false }
                i += 6
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    guard close - i >= 6, base[i] == 0x5C, base[i + 1] == 0x75, let low = hex4(i + 2, close),
                        low >= 0xDC00 && low <= 0xDFFF
                    else { return false }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                    return false
                }
                guard appendUTF8(scalar, into: &out) else { return false }
                run = i
                continue
            default:
                return false
            }
            var byte = decoded
            guard out.appendText(&byte, 1) else { return false }
            i += 2
            run = i
        }
        return out.appendText(base + run, close - run)
    }

    func hex4(_ i: Int, _ limit: Int) -> UInt32? {
        guard limit - i >= 4 else { return nil }
        var v: UInt32 = 0
        for k in 0 ..< 4 {
            let c = base[i + k]
            let d: UInt8
            switch c {
            case 0x30 ... 0x39: d = c - 0x30
            case 0x41 ... 0x46: d = c - 0x37
            case 0x61 ... 0x66: d = c - 0x57
            default: return nil
            }
            v = v << 4 | UInt32(d)
        }
        return v
    }

    func appendUTF8(_ scalar: UInt32, into out: inout TreeBuilder.Columns) -> Bool {
        var bytes: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        let n: Int
        if scalar < 0x80 {
            bytes.0 = UInt8(scalar)
            n = 1
        } else if scalar < 0x800 {
            bytes = (UInt8(0xC0 | (scalar >> 6)), UInt8(0x80 | (scalar & 0x3F)), 0, 0)
            n = 2
        } else if scalar < 0x10000 {
            bytes = (UInt8(0xE0 | (scalar >> 12)), UInt8(0x80 | ((scalar >> 6) & 0x3F)), UInt8(0x80 | (scalar & 0x3F)), 0)
            n = 3
        } else {
            bytes = (
                UInt8(0xF0 | (scalar >> 18)), UInt8(0x80 | ((scalar >> 12) & 0x3F)), UInt8(0x80 | ((scalar >> 6) & 0x3F)),
                UInt8(0x80 | (scalar & 0x3F))
            )
            n = 4
        }
        return withUnsafeBytes(of: &bytes) { out.appendText($0.bindMemory(to: UInt8.self).baseAddress!, n) }
    }

    /// The end of the number at `pos` and whether it is real, when it is a valid RFC 8259 number
    /// followed by whitespace, a structural character or the end.
    @inline(__always)
    func number(at start: Int) -> (end: Int, real: Bool)? {
        var i = start
        if base[i] == 0x2D { i &+= 1 }
        guard i < count, isDigit(base[i]) else { return nil }
        i = base[i] == 0x30 ? i &+ 1 : digitsEnd(from: i)
        var real = false
        if i < count && base[i] == 0x2E {
            real = true
            i &+= 1
            guard i < count, isDigit(base[i]) else { return nil }
            i = digitsEnd(from: i)
        }
        if i < count && (base[i] | 0x20) == 0x65 {
            real = true
            i &+= 1
            if i < count && (base[i] == 0x2B || base[i] == 0x2D) { i &+= 1 }
            guard i < count, isDigit(base[i]) else { return nil }
            i = digitsEnd(from: i)
        }
        guard endsToken(i) else { return nil }
        return (i, real)
    }

    /// The end of the run of digits at `start`, 8 bytes at a time (a byte-by-byte loop mispredicted
    /// its exit on almost every number).
    @inline(__always)
    func digitsEnd(from start: Int) -> Int {
        var i = start
        while count &- i >= 8 {
            let x = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) ^ 0x3030_3030_3030_3030
            // A byte is a digit when its high nibble is now 0 and its low nibble + 6 does not carry.
            let nonDigit = (x & 0xF0F0_F0F0_F0F0_F0F0) | (((x & 0x0F0F_0F0F_0F0F_0F0F) &+ 0x0606_0606_0606_0606) & 0x1010_1010_1010_1010)
            if nonDigit != 0 { return i &+ nonDigit.trailingZeroBitCount &>> 3 }
            i &+= 8
        }
        while i < count && isDigit(base[i]) { i &+= 1 }
        return i
    }

    /// Whether the four bytes at `i` are `word` (big-endian) and end a token.
    @inline(__always)
    func literal(at i: Int, _ word: UInt32) -> Bool {
        guard count - i >= 4 else { return false }
        let w = UInt32(base[i]) << 24 | UInt32(base[i + 1]) << 16 | UInt32(base[i + 2]) << 8 | UInt32(base[i + 3])
        return w == word && endsToken(i + 4)
    }

    /// Whether a number or literal may end before `i`: whitespace, `,:[]{}` or the end.
    @inline(__always)
    func endsToken(_ i: Int) -> Bool {
        guard i < count else { return true }
        let b = base[i]
        return b <= 0x20 || b == 0x2C || b == 0x3A || (b | 0x20) == 0x7B || (b | 0x20) == 0x7D
    }

    @inline(__always)
    func isDigit(_ c: UInt8) -> Bool { c &- 0x30 < 10 }
}
