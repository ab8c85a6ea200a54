import CDrillDownSIMD

/// The direct children of one JSON container (an array's elements or an object's members),
/// found by one level scan of its bytes (``scan(_:open:)``): where each child's separator is.
///
/// A child starts at the first non-whitespace byte after its separator, which is the
/// container's opening bracket for the first child and a comma for the others. Offsets are kept
/// relative to the opening bracket in 32 bits when the container fits in 4 GiB, so a level
/// costs four bytes per child.
struct JSONLevel: Sendable {
    /// The offset of the opening bracket.
    let open: Int
    /// The offset of the matching closing bracket.
    let close: Int
    /// Whether the container is an object (its children are members).
    let isObject: Bool
    /// The separators' offsets minus ``open`` (one per child), or empty when ``wide`` holds them.
    private let narrow: [UInt32]
    /// The separators' absolute offsets, for a container larger than 4 GiB.
    private let wide: [Int]

    /// A level made of separators already found (absolute offsets, in order).
    init(open: Int, close: Int, isObject: Bool, separators: [Int]) {
        self.open = open
        self.close = close
        self.isObject = isObject
        if close - open < Int(UInt32.max) {
            narrow = separators.map { UInt32(truncatingIfNeeded: $0 - open) }
            wide = []
        } else {
            narrow = []
            wide = separators
        }
    }

    private init(open: Int, close: Int, isObject: Bool, narrow: [UInt32], wide: [Int]) {
        self.open = open
        self.close = close
        self.isObject = isObject
        self.narrow = narrow
        self.wide = wide
    }

    /// The number of children.
    var count: Int { narrow.isEmpty ? wide.count : narrow.count }

    /// The offset of child `i`'s separator.
    @inline(__always) func separator(_ i: Int) -> Int { narrow.isEmpty ? wide[i] : open + Int(narrow[i]) }

    /// The bytes of the separators (for memory accounting).
    var footprint: Int { narrow.capacity * 4 + wide.capacity * 8 }

    /// Scans the container whose opening bracket is at `open`, skipping nested containers by
    /// depth counting; checks that it is closed by the matching bracket.
    /// - Complexity: O(the container's bytes), 4 bytes of memory per child.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, open: Int) throws(ParseFailure) -> JSONLevel {
        let base = bytes.baseAddress!
        let isObject = base[open] == 0x7B
        let fitsNarrow = bytes.count - open < Int(UInt32.max)
        var narrow: [UInt32] = [], wide: [Int] = []
        var state = dd_json_level_start(UInt64(open))
        let chunk = 1 << 14
        let scratch = UnsafeMutablePointer<UInt64>.allocate(capacity: chunk)
        defer { scratch.deallocate() }
        while state.state == Int32(DD_LEVEL_RUNNING) {
            let n = Int(dd_json_level_scan(base, UInt64(bytes.count), &state, scratch, 0, UInt64(chunk), UInt64(chunk)))
            if fitsNarrow {
                for i in 0 ..< n { narrow.append(UInt32(truncatingIfNeeded: Int(scratch[i]) - open)) }
            } else {
                for i in 0 ..< n { wide.append(Int(scratch[i])) }
            }
        }
        let closing: UInt8 = isObject ? 0x7D : 0x5D
        let what = isObject ? "'}' to close the object" : "']' to close the array"
        guard state.state == Int32(DD_LEVEL_CLOSED) else {
            let expected = isObject ? "',' or '}' after object member" : "',' or ']' after array element"
            throw ParseFailure(
                offset: bytes.count,
                "expected \(expected), found end of input; expected \(what) opened at \(SourceLocation.text(of: open, in: bytes))")
        }
        let close = Int(state.close)
        guard base[close] == closing else {
            let expected = isObject ? "',' or '}' after object member" : "',' or ']' after array element"
            throw ParseFailure(offset: close, "expected \(expected), found \(SourceLocation.describe(close, in: bytes))")
        }
        // `[ ]` has the opening bracket as its one separator and no child.
        if narrow.count + wide.count == 1, JSONBytes(bytes).skipWhitespace(from: open + 1) == close {
            narrow = []
            wide = []
        }
        if fitsNarrow { narrow.shrinkIfWasteful() } else { wide.shrinkIfWasteful() }
        return JSONLevel(open: open, close: close, isObject: isObject, narrow: narrow, wide: wide)
    }

    /// Calls `body` with the separators of the container at `open` in order, scanning only as
    /// far as needed: the first call after the first block that holds one, then in batches.
    /// `body` returns false to stop. Returns the closing bracket's offset when the scan reached it.
    /// - Throws: when the input ends before the container closes (only if the scan got there).
    @discardableResult
    static func separators(
        _ bytes: UnsafeBufferPointer<UInt8>, open: Int, _ body: (Int) throws(ParseFailure) -> Bool
    ) throws(ParseFailure) -> Int? {
        let base = bytes.baseAddress!
        var state = dd_json_level_start(UInt64(open))
        // The first call returns after the first block with a separator in it (the first member
        // is often the one looked for); later ones after batches of up to 64. The batch is on
        // the stack: the lazy index calls this for every row it reads a member of.
        var failure: ParseFailure?
        let close = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 128) { scratch -> Int? in
            var want: UInt64 = 1
            while true {
                let n = Int(dd_json_level_scan(base, UInt64(bytes.count), &state, scratch.baseAddress!, 0, 128, want))
                do throws(ParseFailure) {
                    for i in 0 ..< n where !(try body(Int(scratch[i]))) { return nil }
                } catch {
                    failure = error
                    return nil
                }
                switch state.state {
                case Int32(DD_LEVEL_CLOSED): return Int(state.close)
                case Int32(DD_LEVEL_UNTERMINATED):
                    let what = base[open] == 0x7B ? "'}' to close the object" : "']' to close the array"
                    failure = ParseFailure(
                        offset: bytes.count, "unexpected end of input; expected \(what) opened at \(SourceLocation.text(of: open, in: bytes))")
                    return nil
                default: want = 64
                }
            }
        }
        if let failure { throw failure }
        return close
    }
}

extension JSONLevel {
    /// The offset of the closing bracket of the container at `open`, scanning from `resume`,
    /// a point among its children (just after one of them), instead of from the bracket; and
    /// the separators found on the way.
    static func close(of bytes: UnsafeBufferPointer<UInt8>, open: Int, resumingAt resume: Int) throws(ParseFailure) -> (close: Int, separators: [Int]) {
        var separators: [Int] = []
        var state = dd_json_level_start(UInt64(resume))
        state.depth = 1
        let scratch = UnsafeMutablePointer<UInt64>.allocate(capacity: 1024)
        defer { scratch.deallocate() }
        while state.state == Int32(DD_LEVEL_RUNNING) {
            let n = Int(dd_json_level_scan(bytes.baseAddress!, UInt64(bytes.count), &state, scratch, 0, 1024, 1024))
            for i in 0 ..< n { separators.append(Int(scratch[i])) }
        }
        let isObject = bytes[open] == 0x7B
        let what = isObject ? "'}' to close the object" : "']' to close the array"
        guard state.state == Int32(DD_LEVEL_CLOSED) else {
            throw ParseFailure(offset: bytes.count, "unexpected end of input; expected \(what) opened at \(SourceLocation.text(of: open, in: bytes))")
        }
        let close = Int(state.close)
        guard bytes[close] == (isObject ? 0x7D : 0x5D) else {
            throw ParseFailure(offset: close, "expected \(what) opened at \(SourceLocation.text(of: open, in: bytes)), found \(SourceLocation.describe(close, in: bytes))")
        }
        return (close, separators)
    }
}

extension Array {
    /// Drops spare capacity when it is more than an eighth of the array.
    mutating func shrinkIfWasteful() {
        guard capacity - count > count / 8 + 16 else { return }
        self = [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = buffer.initialize(fromContentsOf: self)
        }
    }
}
