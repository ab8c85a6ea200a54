import DrillDownCore

/// The state of one OpenStep parse.
struct OpenStepParser {
    /// An open dictionary or array.
    struct Frame {
        var offset: Int
        var isDict: Bool
        /// A `.strings` file's dictionary, closed by the end of input instead of `}`.
        var isImplicit: Bool
        /// A value was read and its `;` (dictionary) or `,` (array) is due.
        var needsSeparator: Bool
        /// Where its keys start in ``keyOffsets``.
        var keysStart: Int
    }

    let base: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    var p: UnsafePointer<UInt8>
    var builder: TreeBuilder
    var open: [Frame] = []
    /// Where the keys of the open dictionaries start, innermost dictionary's last.
    var keyOffsets: [Int] = []

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        end = base + count
        p = base
        builder = TreeBuilder(expectedNodes: count / 20 + 16, expectedTextBytes: count / 2 + 16)
    }

    mutating func parse() throws(ParseFailure) -> TreeStore {
        if end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF { p += 3 }
        try skipSpace()
        guard p < end else { throw failure(at: p, "empty document; expected an OpenStep property list") }
        builder.beginNode()
        builder.endKey()
        if try isStringsFile() {
            builder.openContainer(.object)
            open.append(Frame(offset: p - base, isDict: true, isImplicit: true, needsSeparator: false, keysStart: 0))
        } else {
            try value()
        }
        while let top = open.last {
            try skipSpace()
            if top.isDict {
                try dictionaryStep(top)
            } else {
                try arrayStep(top)
            }
        }
        try skipSpace()
        if p < end {
            throw failure(at: p, "unexpected \(found(p)) after the top-level value; expected end of input")
        }
        guard builder.text.count < Int(UInt32.max) else { throw failure(at: base, "document too large: more than 4 GiB of text") }
        return builder.build()
    }

    /// One step inside a dictionary: its `;`, its `}`, or its next `key = value`.
    mutating func dictionaryStep(_ top: Frame) throws(ParseFailure) {
        if top.needsSeparator {
            guard p < end, p.pointee == 0x3B else {
                throw failure(at: p, "expected ';' after dictionary entry, found \(found(p))" + (p == end ? unclosedNote(top) : ""))
            }
            p += 1
            open[open.count - 1].needsSeparator = false
            return
        }
        if p == end {
            guard top.isImplicit else { throw failure(at: p, "expected a key or '}', found end of input" + unclosedNote(top)) }
            try close()
            return
        }
        if p.pointee == 0x7D {
            if top.isImplicit { throw failure(at: p, "unexpected '}' with no '{' open") }
            p += 1
            try close()
            return
        }
        builder.beginNode()
        keyOffsets.append(p - base)
        let keyStart = builder.text.count
        guard try string() else {
            throw failure(at: p, "expected a dictionary key (a string) or '}', found \(found(p))")
        }
        builder.endKey()
        try skipSpace()
        if p < end && p.pointee == 0x3B {
            let key = Array(builder.text[keyStart...])
            key.withUnsafeBufferPointer { builder.appendText($0) }
            builder.finishScalar(.string)
            p += 1
            return
        }
        guard p < end, p.pointee == 0x3D else {
            throw failure(at: p, "expected '=' after dictionary key, found \(found(p))")
        }
        p += 1
        try skipSpace()
        open[open.count - 1].needsSeparator = true
        try value()
    }

    /// One step inside an array: its `,`, its `)`, or its next element.
    mutating func arrayStep(_ top: Frame) throws(ParseFailure) {
        if p < end && p.pointee == 0x29 {
            p += 1
            try close()
            return
        }
        if top.needsSeparator {
            guard p < end, p.pointee == 0x2C else {
                throw failure(at: p, "expected ',' or ')' after array element, found \(found(p))" + (p == end ? unclosedNote(top) : ""))
            }
            p += 1
            open[open.count - 1].needsSeparator = false
            return
        }
        builder.beginNode()
        builder.endKey()
        open[open.count - 1].needsSeparator = true
        try value()
    }

    /// Reads a value at the cursor: a string or data is finished, a container opened.
    mutating func value() throws(ParseFailure) {
        guard p < end else {
            throw failure(at: p, "expected a value, found end of input" + (open.last.map(unclosedNote) ?? ""))
        }
        switch p.pointee {
        case 0x7B, 0x28:
            let isDict = p.pointee == 0x7B
            guard open.count < OpenStepReader.maxDepth else {
                throw failure(at: p, "nesting deeper than \(OpenStepReader.maxDepth) levels")
            }
            open.append(Frame(offset: p - base, isDict: isDict, isImplicit: false, needsSeparator: false, keysStart: keyOffsets.count))
            builder.openContainer(isDict ? .object : .array)
            p += 1
        case 0x3C:
            try hexData()
            builder.finishScalar(.data)
        default:
            guard try string() else {
                throw failure(at: p, "expected a value (a string, '{', '(' or '<'), found \(found(p))")
            }
            builder.finishScalar(.string)
        }
    }

    /// Closes the innermost container, refusing a dictionary with a duplicate key.
    mutating func close() throws(ParseFailure) {
        let frame = open.removeLast()
        if frame.isDict {
            if keyOffsets.count - frame.keysStart > 1, let (later, earlier) = builder.duplicateKeyInOpenContainer() {
                throw ParseFailure.duplicateKey(
                    builder.keyInOpenContainer(later), at: keyOffsets[frame.keysStart + later],
                    earlier: keyOffsets[frame.keysStart + earlier], in: "dictionary", bytes: UnsafeBufferPointer(start: base, count: end - base))
            }
            keyOffsets.removeSubrange(frame.keysStart...)
        }
        builder.closeContainer()
    }

    /// Whether the document is a `.strings` file: a string followed by `=` or `;` at the top level.
    mutating func isStringsFile() throws(ParseFailure) -> Bool {
        guard p.pointee == 0x22 || p.pointee == 0x27 || isWordByte(p.pointee) else { return false }
        let saved = p
        let savedText = builder.text.count
        defer {
            p = saved
            builder.text.removeLast(builder.text.count - savedText)
        }
        _ = try string()
        try skipSpace()
        return p < end && (p.pointee == 0x3D || p.pointee == 0x3B)
    }

    // MARK: Tokens

    /// Reads a quoted or unquoted string into the builder's text; `false` when none starts here.
    mutating func string() throws(ParseFailure) -> Bool {
        guard p < end else { return false }
        let c = p.pointee
        if c == 0x22 || c == 0x27 {
            try quoted(c)
            return true
        }
        guard isWordByte(c) else { return false }
        let start = p
        while p < end && isWordByte(p.pointee) { p += 1 }
        builder.appendText(UnsafeBufferPointer(start: start, count: p - start))
        return true
    }

    mutating func quoted(_ quote: UInt8) throws(ParseFailure) {
        let opening = p
        p += 1
        var run = p
        while true {
            while p < end && p.pointee != quote && p.pointee != 0x5C { p += 1 }
            builder.appendText(UnsafeBufferPointer(start: run, count: p - run))
            guard p < end else {
                throw failure(at: opening, "unterminated string; expected \(quote == 0x22 ? "'\"'" : "\"'\"") before end of input")
            }
            if p.pointee == quote {
                p += 1
                return
            }
            try escape()
            run = p
        }
    }

    mutating func escape() throws(ParseFailure) {
        let start = p
        p += 1
        guard p < end else { throw failure(at: start, "unterminated string; expected '\"' before end of input") }
        let c = p.pointee
        p += 1
        switch c {
        case 0x6E: builder.appendText(0x0A)
        case 0x74: builder.appendText(0x09)
        case 0x72: builder.appendText(0x0D)
        case 0x61: builder.appendText(0x07)
        case 0x62: builder.appendText(0x08)
        case 0x66: builder.appendText(0x0C)
        case 0x76: builder.appendText(0x0B)
        case 0x30 ... 0x37:
            var value = UInt32(c - 0x30)
            var digits = 1
            while digits < 3, p < end, p.pointee >= 0x30 && p.pointee <= 0x37 {
                value = value * 8 + UInt32(p.pointee - 0x30)
                p += 1
                digits += 1
            }
            UTF8Validation.append(value, to: &builder.text)
        case 0x55, 0x75:
            var scalar = hexDigits()
            if scalar >= 0xD800 && scalar <= 0xDBFF, end - p >= 2, p[0] == 0x5C, p[1] == 0x55 || p[1] == 0x75 {
                let saved = p
                p += 2
                let low = hexDigits()
                if low >= 0xDC00 && low <= 0xDFFF {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    p = saved
                }
            }
            if scalar >= 0xD800 && scalar <= 0xDFFF { scalar = 0xFFFD }
            UTF8Validation.append(scalar, to: &builder.text)
        default:
            builder.appendText(c)
        }
    }

    /// Up to four hex digits at the cursor.
    mutating func hexDigits() -> UInt32 {
        var value: UInt32 = 0
        var n = 0
        while n < 4, p < end, let d = hexValue(p.pointee) {
            value = value << 4 | UInt32(d)
            p += 1
            n += 1
        }
        return value
    }

    /// Reads `<0fbd 7788>` into the builder's text as base64.
    mutating func hexData() throws(ParseFailure) {
        let opening = p
        p += 1
        var bytes: [UInt8] = []
        var pending: UInt8?
        while true {
            guard p < end else { throw failure(at: opening, "unterminated data; expected '>' before end of input") }
            let c = p.pointee
            p += 1
            if c == 0x3E { break }
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { continue }
            guard let d = hexValue(c) else {
                throw failure(at: p - 1, "expected a hex digit or '>' in data, found \(found(p - 1))")
            }
            if let high = pending {
                bytes.append(high << 4 | d)
                pending = nil
            } else {
                pending = d
            }
        }
        if pending != nil { throw failure(at: p - 1, "odd number of hex digits in data; expected whole bytes") }
        bytes.withUnsafeBufferPointer { Base64.encode($0, into: &builder.text) }
    }

    /// Skips whitespace and comments.
    mutating func skipSpace() throws(ParseFailure) {
        while p < end {
            let c = p.pointee
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                p += 1
            } else if c == 0x2F && end - p >= 2 && p[1] == 0x2F {
                while p < end && p.pointee != 0x0A { p += 1 }
            } else if c == 0x2F && end - p >= 2 && p[1] == 0x2A {
                let start = p
                p += 2
                while end - p >= 2 && !(p[0] == 0x2A && p[1] == 0x2F) { p += 1 }
                guard end - p >= 2 else { throw failure(at: start, "unterminated comment; expected '*/'") }
                p += 2
            } else {
                return
            }
        }
    }

    // MARK: Bytes

    func isWordByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x61 ... 0x7A, 0x41 ... 0x5A, 0x30 ... 0x39, 0x5F, 0x24, 0x2B, 0x2F, 0x3A, 0x2E, 0x2D: true
        default: false
        }
    }

    func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30 ... 0x39: c - 0x30
        case 0x41 ... 0x46: c - 0x37
        case 0x61 ... 0x66: c - 0x57
        default: nil
        }
    }

    func unclosedNote(_ frame: Frame) -> String {
        if frame.isImplicit { return "" }
        let what = frame.isDict ? "'}' to close the dictionary" : "')' to close the array"
        return "; expected \(what) opened at \(SourceLocation.text(of: frame.offset, in: UnsafeBufferPointer(start: base, count: end - base)))"
    }

    func failure(at position: UnsafePointer<UInt8>, _ message: String) -> ParseFailure { ParseFailure(offset: position - base, message) }
    func found(_ position: UnsafePointer<UInt8>) -> String { SourceLocation.describe(position - base, in: UnsafeBufferPointer(start: base, count: end - base)) }
}
