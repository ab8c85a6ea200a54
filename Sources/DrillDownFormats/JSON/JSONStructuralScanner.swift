import CDrillDownSIMD

/// Stage 1 of the JSON reader: finds, 64 bytes at a time with SIMD compares and bit arithmetic,
/// where tokens start, and writes those positions in batches into a structural index that
/// stage 2 (``JSONIndexedParser``) walks.
///
/// Per block it builds bitmasks of quotes, backslashes, structural characters (`{}[]:,`),
/// whitespace and control bytes (``dd_json_classify``, in C for the vector unit's move-mask
/// instruction, which Swift's SIMD types do not expose); works out which quotes are escaped (odd
/// backslash runs), which bytes are inside strings (a prefix XOR of the real quotes, carried from
/// block to block), and from that the *structural* positions: `{}[]:,` outside strings, the
/// opening and closing quote of every string, and the first byte of every number or literal.
/// Each position goes into the index with its byte, except that the closing quote of a string
/// holding a backslash is written as `\` (``escapedClose``), so stage 2 knows without looking
/// which strings need unescaping. This is simdjson's stage 1 with its flattening, done a batch
/// at a time (the index stays in the cache, and memory does not grow with the input).
///
/// It also checks what stage 2 never looks at: that the input is valid UTF-8, that no control
/// byte is inside a string, that nothing but space, tab, CR and LF separates tokens, that no
/// backslash is outside a string and that the last string is closed. When any check fails,
/// ``isValid`` turns false and the index ends before that block; the caller then reads the
/// input with ``JSONParser`` to report the error exactly.
///
/// Most blocks of most documents need none of the rarer work (a backslash, a byte of a multi-byte
/// character, a control byte): runs of such *plain* blocks are scanned by ``dd_json_scan_plain``
/// in C, with 32-byte AVX2 compares where the processor has them (asked at run time), and the
/// block it stops before comes back here. That took the scan of the 47.7 MB benchmark file from
/// 26 to 16.5 ms on one thread.
struct JSONStructuralScanner {
    /// The byte written to the index for the closing quote of a string that holds a backslash.
    static let escapedClose: UInt8 = 0x5C
    /// The byte of the entries written after the last position (stage 2 accepts none of them).
    static let end: UInt8 = 0
    /// Entries of ``end`` written after the last position: stage 2 reads up to this many entries
    /// past the point where it last checked that the index has them.
    static let slack = 16

    let base: UnsafePointer<UInt8>
    let count: Int
    /// 64 bytes of scratch for the last, partial block (padded with spaces).
    let tail: UnsafeMutablePointer<UInt8>
    /// Offset of the next block to scan.
    var nextBlock: Int
    /// All ones when the previous block ended inside a string.
    var inStringCarry: UInt64 = 0
    /// 1 when the first byte of the next block is escaped by a backslash.
    var escapeCarry: UInt64 = 0
    /// 1 when the previous block ended in a number or literal byte.
    var scalarCarry: UInt64 = 0
    /// Whether the string open at the end of the previous block has a backslash so far.
    var openStringHasBackslash = false
    /// The offset up to which UTF-8 has been validated.
    var utf8Checked = 0
    /// False once the input is known to be invalid.
    private(set) var isValid = true
    /// True once every block has been scanned (or a check failed): the index is complete.
    private(set) var atEnd = false
    /// Whether runs of plain blocks go to ``dd_json_scan_plain`` (C, AVX2 where there is one);
    /// tests turn it off to compare with this type's own block scan.
    var plainBlocksInC = true

    init(base: UnsafePointer<UInt8>, count: Int, start: Int, tail: UnsafeMutablePointer<UInt8>) {
        self.base = base
        self.count = count
        self.tail = tail
        nextBlock = start
        utf8Checked = start
    }

    /// Scans blocks, appending their positions (`positions`) and bytes (`bytes`) from entry `n`,
    /// until fewer than 64 + ``slack`` entries of `capacity` are left or the input ends; returns
    /// the new entry count. At the end, ``slack`` entries of ``end`` follow the last position.
    @inline(never)
    mutating func fill(_ positions: UnsafeMutablePointer<UInt32>, _ bytes: UnsafeMutablePointer<UInt8>, from n: Int, capacity: Int) -> Int {
        var n = n
        while n <= capacity - 64 - Self.slack {
            guard nextBlock < count, isValid else {
                atEnd = true
                for k in 0 ..< Self.slack {
                    positions[n + k] = UInt32(truncatingIfNeeded: count)
                    bytes[n + k] = Self.end
                }
                return n
            }
            // Runs of plain blocks in C (``dd_json_scan_plain``); the block it stops before, here.
            if plainBlocksInC && escapeCarry == 0 && !openStringHasBackslash && count - nextBlock > 64 {
                var carry = dd_json_carry(inStringCarry: inStringCarry, scalarCarry: scalarCarry)
                var entries = UInt64(n)
                let blocks = dd_json_scan_plain(
                    base, UInt64(nextBlock), UInt64((count - nextBlock - 1) / 64), positions, bytes, &entries,
                    UInt64(capacity - 64 - Self.slack), &carry)
                if blocks > 0 {
                    nextBlock += 64 * Int(blocks)
                    inStringCarry = carry.inStringCarry
                    scalarCarry = carry.scalarCarry
                    n = Int(entries)
                    continue
                }
            }
            n = scanBlock(positions, bytes, n)
        }
        return n
    }

    /// Bit i set when an odd number of bits at or below i are set in `x`.
    @inline(__always)
    static func prefixXOR(_ x: UInt64) -> UInt64 {
        var x = x
        x ^= x << 1
        x ^= x << 2
        x ^= x << 4
        x ^= x << 8
        x ^= x << 16
        x ^= x << 32
        return x
    }

    /// Scans the block at ``nextBlock`` and appends its positions from entry `n`; returns the new count.
    @inline(__always)
    mutating func scanBlock(_ positions: UnsafeMutablePointer<UInt32>, _ bytes: UnsafeMutablePointer<UInt8>, _ n: Int) -> Int {
        let blockStart = nextBlock
        nextBlock += 64
        let p: UnsafePointer<UInt8>
        let last = count - blockStart <= 64
        if last {
            tail.update(repeating: 0x20, count: 64)
            tail.update(from: base + blockStart, count: count - blockStart)
            p = UnsafePointer(tail)
        } else {
            p = base + blockStart
        }
        let masks = dd_json_classify(p)
        var quote = masks.quote
        let op = masks.op, whitespace = masks.whitespace, control = masks.control, backslash = masks.backslash

        // Escaped bytes: the byte after an odd run of backslashes.
        var escaped = escapeCarry
        if backslash != 0 {
            let odd: UInt64 = 0xAAAA_AAAA_AAAA_AAAA
            let potential = backslash & ~escapeCarry
            let code = (((potential << 1) | odd) &- potential) ^ odd
            escaped = code ^ (backslash | escapeCarry)
            escapeCarry = (code & backslash) >> 63
        } else {
            escapeCarry = 0
        }
        quote &= ~escaped
        let startsInString = inStringCarry != 0
        let inString = Self.prefixXOR(quote) ^ inStringCarry
        inStringCarry = 0 &- (inString >> 63)
        let stringTail = inString ^ quote  // string contents and closing quotes

        let scalar = ~(op | whitespace)
        let nonQuoteScalar = scalar & ~quote
        let followsScalar = nonQuoteScalar << 1 | scalarCarry
        scalarCarry = nonQuoteScalar >> 63
        let structurals = ((op | (scalar & ~followsScalar)) & ~stringTail) | (quote & ~inString)

        // Checks stage 2 relies on.
        if control != 0 {
            if control & inString != 0 { return fail(n) }
            var c = control
            while c != 0 {
                let b = p[c.trailingZeroBitCount]
                if b != 0x0A && b != 0x0D && b != 0x09 { return fail(n) }
                c &= c &- 1
            }
        }
        if backslash & ~inString != 0 { return fail(n) }
        if masks.nonASCII != 0 && !validateUTF8(blockStart) { return fail(n) }
        if last && inStringCarry != 0 { return fail(n) }

        if backslash != 0 || openStringHasBackslash {
            let flagged = escapedCloses(quote: quote, backslash: backslash, startsInString: startsInString)
            if flagged != 0 { return flattenFlagged(structurals, flagged, p, blockStart, positions, bytes, n) }
        }
        // Four entries per round, written whether or not the mask has that many bits (the index
        // has room): the loop runs popcount / 4 times, so its exit is rarely mispredicted.
        var s = structurals
        var i = n
        let total = n &+ s.nonzeroBitCount
        let start = UInt32(truncatingIfNeeded: blockStart)
        while i < total {
            for k in 0 ..< 4 {
                let bit = s.trailingZeroBitCount
                positions[i &+ k] = start &+ UInt32(truncatingIfNeeded: bit)
                bytes[i &+ k] = p[bit & 63]
                s &= s &- 1
            }
            i &+= 4
        }
        return total
    }

    /// The closing quotes (of `quote`, the block's real quotes) of strings holding a backslash.
    /// Quotes alternate between opening and closing; `startsInString` says what the first one is.
    mutating func escapedCloses(quote: UInt64, backslash: UInt64, startsInString: Bool) -> UInt64 {
        var flagged: UInt64 = 0
        var inString = startsInString
        var has = openStringHasBackslash
        var from = 0  // first bit of the current segment
        var q = quote
        while q != 0 {
            let bit = q.trailingZeroBitCount
            if inString {
                // Backslashes in from ..< bit.
                let segment = (bit == 64 ? ~0 : (UInt64(1) << UInt64(bit)) &- 1) & ~((UInt64(1) << UInt64(from)) &- 1)
                if has || backslash & segment != 0 { flagged |= UInt64(1) << UInt64(bit) }
            }
            has = false
            inString.toggle()
            from = bit + 1
            q &= q &- 1
        }
        if inString {
            let rest: UInt64 = from >= 64 ? 0 : ~((UInt64(1) << UInt64(from)) &- 1)
            has = has || backslash & rest != 0
        } else {
            has = false
        }
        openStringHasBackslash = has
        return flagged
    }

    /// Appends a block's positions one by one, writing ``escapedClose`` for the `flagged` quotes.
    mutating func flattenFlagged(
        _ structurals: UInt64, _ flagged: UInt64, _ p: UnsafePointer<UInt8>, _ blockStart: Int,
        _ positions: UnsafeMutablePointer<UInt32>, _ bytes: UnsafeMutablePointer<UInt8>, _ n: Int
    ) -> Int {
        var s = structurals
        var i = n
        while s != 0 {
            let bit = s.trailingZeroBitCount
            positions[i] = UInt32(truncatingIfNeeded: blockStart + bit)
            bytes[i] = flagged & (UInt64(1) << UInt64(bit)) != 0 ? Self.escapedClose : p[bit]
            s &= s &- 1
            i += 1
        }
        return i
    }

    /// Validates the non-ASCII sequences that start in the block at `blockStart`.
    mutating func validateUTF8(_ blockStart: Int) -> Bool {
        var i = max(utf8Checked, blockStart)
        let stop = min(blockStart + 64, count)
        let end = base + count
        while i < stop {
            if base[i] < 0x80 {
                i += 1
                continue
            }
            let n = UTF8Validation.sequenceLength(base + i, end)
            if n == 0 { return false }
            i += n
        }
        utf8Checked = i
        return true
    }

    /// Marks the input invalid; the index ends before the current block.
    mutating func fail(_ n: Int) -> Int {
        isValid = false
        nextBlock = count
        return n
    }
}
