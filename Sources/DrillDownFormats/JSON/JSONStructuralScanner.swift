import CDrillDownSIMD

/// Stage 1 of the JSON reader: finds, 64 bytes at a time with SIMD compares and bit arithmetic,
/// where tokens start, and hands those positions out in order.
///
/// Per block it builds bitmasks of quotes, backslashes, structural characters (`{}[]:,`),
/// whitespace and control bytes (``dd_json_classify``, in C for the vector unit's move-mask
/// instruction, which Swift's SIMD types do not expose); works out which quotes are escaped (odd backslash runs), which
/// bytes are inside strings (a prefix XOR of the real quotes, carried from block to block), and
/// from that the *structural* positions: `{}[]:,` outside strings, the opening and closing quote
/// of every string, and the first byte of every number or literal. A block's positions are a
/// bitmask, so there is no index array: ``next()`` pops the lowest bit and scans the next block
/// when the mask is empty. This is simdjson's stage 1, consumed as it is produced.
///
/// It also checks what stage 2 never looks at: that the input is valid UTF-8, that no control
/// byte is inside a string, that nothing but space, tab, CR and LF separates tokens, that no
/// backslash is outside a string and that the last string is closed. When any check fails,
/// ``isValid`` turns false and the positions run out; the caller then reads the input with
/// ``JSONParser`` to report the error exactly.
struct JSONStructuralScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// 64 bytes of scratch for the last, partial block (padded with spaces).
    let tail: UnsafeMutablePointer<UInt8>
    /// Offset of the next block to scan.
    var nextBlock: Int
    /// Offset of the current block.
    private(set) var blockStart = 0
    /// Structural positions of the current block not yet handed out.
    var structurals: UInt64 = 0
    /// Backslashes of the current block.
    var backslashes: UInt64 = 0
    /// The greatest offset of a backslash before the current block, or -1.
    var lastBackslash = -1
    /// All ones when the previous block ended inside a string.
    var inStringCarry: UInt64 = 0
    /// 1 when the first byte of the next block is escaped by a backslash.
    var escapeCarry: UInt64 = 0
    /// 1 when the previous block ended in a number or literal byte.
    var scalarCarry: UInt64 = 0
    /// The offset up to which UTF-8 has been validated.
    var utf8Checked = 0
    /// False once the input is known to be invalid.
    private(set) var isValid = true

    init(base: UnsafePointer<UInt8>, count: Int, start: Int, tail: UnsafeMutablePointer<UInt8>) {
        self.base = base
        self.count = count
        self.tail = tail
        nextBlock = start
        blockStart = start
        utf8Checked = start
    }

    /// The offset of the next structural position, or -1 after the last one.
    @inline(__always)
    mutating func next() -> Int {
        if structurals == 0 {
            scanBlocks()
            if structurals == 0 { return -1 }
        }
        let bit = structurals.trailingZeroBitCount
        structurals &= structurals &- 1
        return blockStart &+ bit
    }

    /// Whether a backslash lies in `open ..< close`, where `close` was the last position handed out.
    @inline(__always)
    func hasBackslash(from open: Int, to close: Int) -> Bool {
        let below = backslashes & ((1 &<< UInt64(truncatingIfNeeded: close &- blockStart)) &- 1)
        if below != 0 { return blockStart &+ 63 &- below.leadingZeroBitCount >= open }
        return lastBackslash >= open
    }

    /// High bit set in the lanes of `v` equal to `c`. (Swift's `.==` on SIMD16<UInt8> is
    /// compiled lane by lane; wrapping arithmetic becomes SSE2 instructions.)
    @inline(__always)
    static func equal(_ v: SIMD16<UInt8>, _ c: UInt8) -> SIMD16<UInt8> {
        let d = v ^ SIMD16(repeating: c)
        return (d &- SIMD16(repeating: 1)) & ~d
    }

    /// High bit set in the lanes of `v` below `c` (`c` ≤ 0x80).
    @inline(__always)
    static func below(_ v: SIMD16<UInt8>, _ c: UInt8) -> SIMD16<UInt8> {
        (v &- SIMD16(repeating: c)) & ~v
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

    /// Scans blocks until one has structural positions or the input ends.
    @inline(never)
    mutating func scanBlocks() {
        while structurals == 0 && nextBlock < count { scanBlock() }
    }

    @inline(__always)
    mutating func scanBlock() {
        if backslashes != 0 { lastBackslash = blockStart + 63 - backslashes.leadingZeroBitCount }
        blockStart = nextBlock
        nextBlock += 64
        let p: UnsafeRawPointer
        let last = count - blockStart <= 64
        if last {
            tail.update(repeating: 0x20, count: 64)
            tail.update(from: base + blockStart, count: count - blockStart)
            p = UnsafeRawPointer(tail)
        } else {
            p = UnsafeRawPointer(base + blockStart)
        }
        let masks = dd_json_classify(p.assumingMemoryBound(to: UInt8.self))
        var quote = masks.quote
        let op = masks.op, whitespace = masks.whitespace, control = masks.control, backslash = masks.backslash
        backslashes = backslash

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
        let inString = Self.prefixXOR(quote) ^ inStringCarry
        inStringCarry = 0 &- (inString >> 63)
        let stringTail = inString ^ quote  // string contents and closing quotes

        let scalar = ~(op | whitespace)
        let nonQuoteScalar = scalar & ~quote
        let followsScalar = nonQuoteScalar << 1 | scalarCarry
        scalarCarry = nonQuoteScalar >> 63
        structurals = ((op | (scalar & ~followsScalar)) & ~stringTail) | (quote & ~inString)

        // Checks stage 2 relies on.
        if control != 0 {
            if control & inString != 0 { fail() }
            var c = control
            while c != 0 {
                let b = p.load(fromByteOffset: c.trailingZeroBitCount, as: UInt8.self)
                if b != 0x0A && b != 0x0D && b != 0x09 { fail() }
                c &= c &- 1
            }
        }
        if backslash & ~inString != 0 { fail() }
        if masks.nonASCII != 0 { validateUTF8() }
        if last && inStringCarry != 0 { fail() }
    }

    /// Validates the non-ASCII sequences that start in the current block.
    mutating func validateUTF8() {
        var i = max(utf8Checked, blockStart)
        let stop = min(blockStart + 64, count)
        let end = base + count
        while i < stop {
            if base[i] < 0x80 {
                i += 1
                continue
            }
            let n = UTF8Validation.sequenceLength(base + i, end)
            if n == 0 {
                fail()
                return
            }
            i += n
        }
        utf8Checked = i
    }

    mutating func fail() {
        isValid = false
        structurals = 0
        nextBlock = count
    }
}
