import CDrillDownSIMD
import DrillDownCore

/// Stage 2 of the JSON reader: walks the structural index of a ``JSONStructuralScanner`` and
/// writes every value straight into the store's arrays (``TreeBuilder/Columns``).
///
/// It is simdjson's stage 2 in shape: one function whose state is the position in the index and
/// the innermost container's kind, moving between the states "a value starts here" and "after a
/// value" (Swift has no `goto`; the two are a labelled loop and the loop inside it). Each index
/// entry is an offset and the byte there, so dispatch reads the index, not the input; the index is
/// refilled a batch at a time, and only where a node starts or a container closes is there a
/// check that it holds enough entries for what follows (its end is padded with entries no state
/// accepts). Whitespace is never looked at and a string's closing quote is an entry, marked when
/// the string has a backslash, so a string without one is a 16-byte move. Integers of up to seven
/// digits are checked with one 8-byte load; other numbers and literals byte by byte as the RFC
/// says. It accepts exactly what ``JSONParser`` accepts and builds the same tree; on anything it
/// does not accept it returns `nil` without saying why, and the caller runs ``JSONParser`` to
/// report the error with its position (errors are rare, so the exact message costs nothing on
/// the path that matters).
struct JSONIndexedParser {
    /// Entries of the structural index refilled at a time (16 KiB of offsets and 4 KiB of bytes,
    /// which stay in the first-level cache).
    static let batch = 4096
    /// The most entries stage 2 reads between two checks that the window has them: a value (2),
    /// `,` or a close, a key (2), `:` and the next value's first.
    static let reachOfParse = 8

    /// The tree of `input`, or `nil` when it is not valid JSON (or too large for this path).
    /// With `loan` (a mapped file with room after it, see ``InputLoan``), the store's text is the
    /// input itself: plain keys and values are not copied. Stage 1 runs on a second thread
    /// (``JSONThreadedFeed``) when `threaded` says so, or by default when the input is large
    /// enough and there is a second core.
    /// Throws when the store's arrays cannot be reserved.
    static func read(
        _ input: UnsafeBufferPointer<UInt8>, lending loan: InputLoan? = nil, threaded: Bool? = nil
    ) throws(ReservationFailure) -> TreeStore? {
        var refused: ReservationFailure?
        let tree = withScanner(input) { scanner, source, open -> TreeStore? in
            func build(_ counts: dd_json_counts, _ fill: (inout TreeBuilder.Columns) -> Bool) -> TreeStore? {
                let (bound, textBytes) = sizes(counts, input.count)
                guard bound < Int(Int32.max) else { return nil }
                do throws(ReservationFailure) {
                    if let loan, loan.base == input.baseAddress, loan.appendFrom >= input.count, loan.capacity < Int(UInt32.max) {
                        return try TreeBuilder.build(
                            nodeCapacity: bound, lending: loan.region(), appendFrom: loan.appendFrom, expectedNodes: bound, fill)
                    }
                    return try TreeBuilder.build(
                        nodeCapacity: bound, textCapacity: input.count, expectedNodes: bound, expectedTextBytes: textBytes, fill)
                } catch {
                    refused = error
                    return nil
                }
            }
            if threaded ?? JSONThreadedFeed.worthIt(input.count), var feed = JSONThreadedFeed.started(scanner, countFrom: input.count / 2) {
                let tree = build(feed.inputCounts()) { columns in
                    parse(source, &feed, open, &columns)
                }
                return feed.finish() && tree != nil ? tree : nil
            }
            return build(dd_json_count_fast(scanner.base, UInt64(input.count))) { columns in
                var feed = JSONScanFeed(scanner)
                let parsed = parse(source, &feed, open, &columns)
                return feed.finish() && parsed
            }
        } ?? nil
        if let refused { throw refused }
        return tree
    }

    /// Reads the whole input into `sink` (a search, which keeps only what it looks for) with both
    /// stages, stage 1 on a second thread when it is worth it; `false` when the input is not valid
    /// JSON or too large for the index, or when `sink` stopped the read.
    static func walk<Sink: JSONValueSink>(_ input: UnsafeBufferPointer<UInt8>, into sink: inout Sink) -> Bool {
        withScanner(input) { scanner, source, open in
            if JSONThreadedFeed.worthIt(input.count), var feed = JSONThreadedFeed.started(scanner) {
                let parsed = parse(source, &feed, open, &sink)
                return feed.finish() && parsed
            }
            var feed = JSONScanFeed(scanner)
            let parsed = parse(source, &feed, open, &sink)
            return feed.finish() && parsed
        } ?? false
    }

    /// `body` with stage 1 set up on `input` (a byte-order mark skipped), the input for stage 2 and
    /// its stack of open containers; `nil` when the input is empty or too large for the index.
    static func withScanner<R>(
        _ input: UnsafeBufferPointer<UInt8>, _ body: (JSONStructuralScanner, JSONInput, UnsafeMutablePointer<Bool>) -> R
    ) -> R? {
        guard let base = input.baseAddress, !input.isEmpty, input.count < Int(UInt32.max) - 64 else { return nil }
        let tail = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        let open = UnsafeMutablePointer<Bool>.allocate(capacity: JSONReader.maxDepth + 1)
        defer {
            tail.deallocate()
            open.deallocate()
        }
        let start = input.count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF ? 3 : 0
        let scanner = JSONStructuralScanner(base: base, count: input.count, start: start, tail: tail)
        return body(scanner, JSONInput(base: base, count: input.count), open)
    }

    /// An upper bound of the node count, and an estimate of the text bytes. Every value but the
    /// root follows a `,` or opens its container's list after a `[` or `{`, so the bound is 1 +
    /// the number of those bytes (strings included). The text is about what is left without
    /// quotes, `,:[]{}` and whitespace (exact when strings hold none of those and no escapes).
    static func sizes(_ c: dd_json_counts, _ count: Int) -> (nodes: Int, textBytes: Int) {
        (Int(c.separators) + 1, count - Int(c.syntax))
    }

    /// Reads the whole input into `out`; `false` when it is not valid JSON (or `out` refused text).
    /// Whether the input passed stage 1's checks is the feed's to say (``JSONIndexFeed/finish()``).
    static func parse<Feed: JSONIndexFeed, Sink: JSONValueSink>(
        _ input: JSONInput, _ feed: inout Feed, _ open: UnsafeMutablePointer<Bool>, _ out: inout Sink
    ) -> Bool {
        // Entries `k ..< n` are unread; past `n` there are at least `slack` more (refilled or `end`).
        var positions = UnsafeMutablePointer<UInt32>(bitPattern: 8)!, bytes = UnsafeMutablePointer<UInt8>(bitPattern: 8)!
        var n = 0
        feed.start(&positions, &bytes, &n)
        var k = 0
        if n &- k < reachOfParse && !feed.atEnd { feed.refill(&positions, &bytes, &k, &n) }
        let reach = reachOfParse
        var depth = 0
        var inObject = false
        var pos = Int(positions[k]), c = bytes[k]
        k &+= 1
        out.beginNode()
        out.endKey()
        value: while true {
            // State "a value starts at `pos`, whose byte is `c`".
            if n &- k < reach && !feed.atEnd { feed.refill(&positions, &bytes, &k, &n) }
            switch c {
            case 0x22:
                let close = Int(positions[k]), e = bytes[k]
                k &+= 1
                if e == 0x22 {
                    guard out.scalar(.string, input, pos &+ 1, close &- pos &- 1) else { return false }
                } else {
                    guard e == JSONStructuralScanner.escapedClose, input.unescape(from: pos + 1, to: close, into: &out) else { return false }
                    out.finishScalar(.string)
                }
            case 0x7B, 0x5B:
                let isObject = c == 0x7B
                guard depth < JSONReader.maxDepth else { return false }
                open[depth] = isObject
                depth &+= 1
                out.openContainer(isObject ? .object : .array)
                pos = Int(positions[k])
                c = bytes[k]
                k &+= 1
                if c == (isObject ? 0x7D : 0x5D) {
                    depth &-= 1
                    out.closeContainer()
                    inObject = depth > 0 && open[depth &- 1]
                } else {
                    inObject = isObject
                    out.beginNode()
                    if isObject {
                        // `"key":` and the value's first entry.
                        guard c == 0x22, bytes[k &+ 1] == 0x3A else { return false }
                        guard key(input, pos, Int(positions[k]), bytes[k], &out) else { return false }
                        pos = Int(positions[k &+ 2])
                        c = bytes[k &+ 2]
                        k &+= 3
                    } else {
                        out.endKey()
                    }
                    continue value
                }
            case 0x2D, 0x30 ... 0x39:
                guard let (end, real) = input.number(at: pos), out.scalar(real ? .real : .integer, input, pos, end &- pos) else { return false }
            case 0x74:
                guard input.literal(at: pos, 0x7472_7565), out.scalar(.bool, input, pos, 4) else { return false }
            case 0x66:
                guard input.literal(at: pos &+ 1, 0x616C_7365), out.scalar(.bool, input, pos, 5) else { return false }
            case 0x6E:
                guard input.literal(at: pos, 0x6E75_6C6C), out.scalar(.null, input, pos, 0) else { return false }
            default:
                return false
            }
            // State "after a value": a `,` and the next member, or the container's end.
            while depth > 0 {
                let d = bytes[k]
                k &+= 1
                if d == 0x2C {
                    out.beginNode()
                    if inObject {
                        guard bytes[k] == 0x22, bytes[k &+ 2] == 0x3A else { return false }
                        guard key(input, Int(positions[k]), Int(positions[k &+ 1]), bytes[k &+ 1], &out) else { return false }
                        pos = Int(positions[k &+ 3])
                        c = bytes[k &+ 3]
                        k &+= 4
                    } else {
                        out.endKey()
                        pos = Int(positions[k])
                        c = bytes[k]
                        k &+= 1
                    }
                    continue value
                }
                guard d == (inObject ? 0x7D : 0x5D) else { return false }
                depth &-= 1
                out.closeContainer()
                inObject = depth > 0 && open[depth &- 1]
                if n &- k < reach && !feed.atEnd { feed.refill(&positions, &bytes, &k, &n) }
            }
            break
        }
        if n &- k < reach && !feed.atEnd { feed.refill(&positions, &bytes, &k, &n) }
        return bytes[k] == JSONStructuralScanner.end && k == n
    }

    /// Appends the key quoted at `open` and `close` (whose index byte is `closeByte`) and ends it.
    @inline(__always)
    static func key<Sink: JSONValueSink>(_ input: JSONInput, _ open: Int, _ close: Int, _ closeByte: UInt8, _ out: inout Sink) -> Bool {
        if closeByte == 0x22 { return out.key(input, open &+ 1, close &- open &- 1) }
        guard closeByte == JSONStructuralScanner.escapedClose, input.unescape(from: open + 1, to: close, into: &out) else { return false }
        out.endKey()
        return true
    }
}

/// The bytes of a JSON input, with stage 2's byte-level helpers.
struct JSONInput {
    let base: UnsafePointer<UInt8>
    let count: Int

    /// Decodes a string with escapes (validated as ``JSONParser/scanEscape()`` does).
    func unescape<Sink: JSONValueSink>(from start: Int, to close: Int, into out: inout Sink) -> Bool {
        guard out.willAppendDecoded() else { return false }
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

    func appendUTF8<Sink: JSONValueSink>(_ scalar: UInt32, into out: inout Sink) -> Bool {
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
        // The common case, an integer of 1 to 7 digits followed by a byte that ends it, from one
        // 8-byte load; anything else (a leading zero with more digits, a fraction, an exponent,
        // eight digits or more, the input's last bytes) takes the full check below.
        let digitsAt = base[start] == 0x2D ? start &+ 1 : start
        if count &- digitsAt >= 8 {
            let x = UInt64(littleEndian: UnsafeRawPointer(base + digitsAt).loadUnaligned(as: UInt64.self)) ^ 0x3030_3030_3030_3030
            let nonDigit = (x & 0xF0F0_F0F0_F0F0_F0F0) | (((x & 0x0F0F_0F0F_0F0F_0F0F) &+ 0x0606_0606_0606_0606) & 0x1010_1010_1010_1010)
            let digits = nonDigit.trailingZeroBitCount &>> 3
            if digits > 0 && digits < 8 && (digits == 1 || base[digitsAt] != 0x30) {
                let b = base[digitsAt &+ digits]
                if b <= 0x20 || b == 0x2C || (b | 0x20) == 0x7D { return (digitsAt &+ digits, false) }
            }
        }
        return fullNumber(at: start)
    }

    /// ``number(at:)``, byte by byte.
    func fullNumber(at start: Int) -> (end: Int, real: Bool)? {
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

/// Where stage 2 (``JSONIndexedParser/parse(_:_:_:_:)``) puts what it reads, in
/// ``TreeBuilder``'s calls: the store's columns for a load, or a search that keeps only its hits
/// (``JSONSearchSink``). Stage 2 is specialized for each, so a load pays nothing for the choice.
protocol JSONValueSink {
    mutating func beginNode()
    mutating func endKey()
    /// Called before an escaped string's decoded pieces are appended; `false` to stop the read.
    mutating func willAppendDecoded() -> Bool
    /// Appends `count` decoded bytes (an escaped string's pieces); `false` to stop the read.
    mutating func appendText(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Bool
    /// Appends the `n` input bytes at `start`, text that needs no decoding; `false` to stop the read.
    mutating func appendInput(_ input: JSONInput, _ start: Int, _ n: Int) -> Bool
    mutating func finishScalar(_ kind: ValueKind)
    mutating func openContainer(_ kind: ValueKind)
    mutating func closeContainer()
    /// The current node's key: the `n` input bytes at `start`, which need no decoding (its
    /// ``appendInput(_:_:_:)`` and ``endKey()``); `false` to stop the read.
    mutating func key(_ input: JSONInput, _ start: Int, _ n: Int) -> Bool
    /// Finishes the current node as a scalar: the `n` input bytes at `start`, which need no
    /// decoding (its ``appendInput(_:_:_:)`` and ``finishScalar(_:)``); `false` to stop the read.
    mutating func scalar(_ kind: ValueKind, _ input: JSONInput, _ start: Int, _ n: Int) -> Bool
}

extension JSONValueSink {
    @inline(__always)
    mutating func key(_ input: JSONInput, _ start: Int, _ n: Int) -> Bool { copiedKey(input, start, n) }

    @inline(__always)
    mutating func scalar(_ kind: ValueKind, _ input: JSONInput, _ start: Int, _ n: Int) -> Bool { copiedScalar(kind, input, start, n) }

    /// ``key(_:_:_:)`` as ``appendInput(_:_:_:)`` and ``endKey()``.
    @inline(__always)
    mutating func copiedKey(_ input: JSONInput, _ start: Int, _ n: Int) -> Bool {
        guard appendInput(input, start, n) else { return false }
        endKey()
        return true
    }

    /// ``scalar(_:_:_:_:)`` as ``appendInput(_:_:_:)`` and ``finishScalar(_:)``.
    @inline(__always)
    mutating func copiedScalar(_ kind: ValueKind, _ input: JSONInput, _ start: Int, _ n: Int) -> Bool {
        guard n == 0 || appendInput(input, start, n) else { return false }
        finishScalar(kind)
        return true
    }
}

extension TreeBuilder.Columns: JSONValueSink {
    /// A slice of the input where the store's text starts with it (``lendsInput``, see
    /// ``JSONIndexedParser/read(_:lending:threaded:)``).
    @inline(__always)
    mutating func key(_ input: JSONInput, _ start: Int, _ n: Int) -> Bool {
        guard lendsInput else { return copiedKey(input, start, n) }
        sliceKey(start, n)
        return true
    }

    /// A slice of the input where the store's text starts with it (see ``key(_:_:_:)``).
    @inline(__always)
    mutating func scalar(_ kind: ValueKind, _ input: JSONInput, _ start: Int, _ n: Int) -> Bool {
        lendsInput ? finishScalar(kind, slice: start, n) : copiedScalar(kind, input, start, n)
    }

    /// Short runs (most keys and values) with one 16-byte move, not a call to memmove.
    @inline(__always)
    mutating func appendInput(_ input: JSONInput, _ start: Int, _ n: Int) -> Bool {
        if n <= 16 && input.count &- start >= 16 { return appendShortText(input.base + start, n) }
        return appendText(input.base + start, n)
    }
}
