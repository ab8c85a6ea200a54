import DrillDownCore

/// Reads the block-style YAML that most files are written in (and that ``YAMLWriter`` writes)
/// straight from its bytes into the store's arrays (``TreeBuilder/Columns``), without the event parser.
///
/// This is the first path of ``YAMLReader``. It takes a conservative subset of YAML and gives up
/// (returns `nil`) on the first thing outside it, leaving the document to ``YAMLParser``
/// (``YAMLStreamReader``, then ``YAMLComposer``, which reports every error with its line and
/// column). So a document it accepts gives exactly the tree the parser's path gives, and every
/// document it declines reads as before. The subset:
///
/// - block mappings (`key: value`) and block sequences (`- item`), nested by indentation with
///   spaces, including a sequence at its key's indentation and compact nesting (`- - a`, `- k: v`);
/// - single-line scalars: plain (typed by ``YAMLScalar`` as the parser's plain scalars are),
///   single-quoted and double-quoted with every YAML escape (always strings);
/// - the empty flow collections `{}` and `[]`, comments, blank lines, one leading `---`,
///   `\n` or `\r\n` line ends.
///
/// It declines flow collections with content, anchors, aliases, tags, block scalars (`|`, `>`),
/// multi-line scalars, explicit keys (`?`), directives, document end markers and second
/// documents, tabs outside quotes and comments, characters YAML refuses or libyaml read as line
/// breaks (C0 and C1 controls, DEL, U+2028, U+2029, U+FEFF, U+FFFE, U+FFFF), a lone `\r`, keys
/// longer than 1000 bytes (the parser's limit for simple keys is 1024 bytes), merge keys,
/// duplicate keys (found as each mapping closes, ``DuplicateKeys``), any indentation that does not match an open level, and
/// documents past the nesting or ``ExpansionLimit`` limits.
///
/// ```swift
/// let tree = YAMLBlockReader.read(buffer, limit: .default)   // nil: read it with YAMLParser
/// ```
/// - Complexity: O(n) in the input size; duplicate keys are found as each mapping closes
///   (``TreeBuilder/Columns``, ``DuplicateKeys``), O(k log k) for k keys.
struct YAMLBlockReader {
    /// An open block mapping or sequence.
    struct Frame {
        var isMapping: Bool
        /// The column of its keys or dashes.
        var indent: Int
    }

    /// A scalar as written: its bytes between the quotes (or all of it, plain).
    struct Scalar {
        enum Style { case plain, single, double }
        var start: Int
        var end: Int
        var style: Style
        /// Quoted: it holds `''` or a backslash escape, so its text differs from its bytes.
        var escaped = false
    }

    /// What the node being read waits for: its value may start on a later line.
    enum Awaiting { case none, root, key, item }

    let base: UnsafePointer<UInt8>
    let count: Int
    /// The byte classes of ``classes``.
    let table: UnsafePointer<UInt8>
    /// The cursor.
    var i = 0
    /// Where the cursor's line starts (columns are counted from it; indentation is spaces only).
    var lineStart = 0
    var frames: [Frame] = []
    var nodes = 0
    var awaiting = Awaiting.root
    /// For ``Awaiting/key`` and ``Awaiting/item``: the indentation of the mapping or sequence.
    var awaitingIndent = 0

    /// The tree of `buffer` (valid UTF-8), or `nil` when it must be read with ``YAMLParser``.
    static func read(_ buffer: UnsafeBufferPointer<UInt8>, limit: ExpansionLimit) throws(ReservationFailure) -> TreeStore? {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
        var reader = YAMLBlockReader(base: base, count: buffer.count, table: classes)
        reader.frames.reserveCapacity(64)
        // As in YAMLStreamReader: every node takes at least two bytes of input but the root, and
        // stored text (keys as written, values as stored) can be longer than the input.
        let maxNodes = limit.maxNodes(inputBytes: buffer.count)
        let maxText = limit.maxTextBytes(inputBytes: buffer.count)
        let (nodes, text) = NodeBound.yamlCapacities(buffer)
        return try TreeBuilder.build(nodeCapacity: nodes, textCapacity: text) { out in
            reader.fill(into: &out) && reader.nodes <= maxNodes && out.textCount <= maxText
        }
    }

    // MARK: Bytes

    /// Byte classes: 0 for a byte that continues a plain scalar (`!`…`~` but `:`); 1 for a space;
    /// 2 for `:`; 3 for `\n` and `\r`; 4 for the bytes of a non-ASCII character; 5 for a tab,
    /// other controls and DEL. Written once, when first used, and only read after that.
    nonisolated(unsafe) static let classes: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        for b in 0 ..< 256 {
            switch b {
            case 0x20: table[b] = 1
            case 0x3A: table[b] = 2
            case 0x0A, 0x0D: table[b] = 3
            case 0x80...: table[b] = 4
            case 0x21 ... 0x7E: table[b] = 0
            default: table[b] = 5
            }
        }
        return UnsafePointer(table)
    }()

    @inline(__always) func byte(_ at: Int) -> UInt8 { at < count ? base[at] : 0 }

    /// A space, a tab, a line break or the end of the input after position `at - 1`.
    @inline(__always) func isBlankOrEnd(_ at: Int) -> Bool {
        guard at < count else { return true }
        let b = base[at]
        return b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    /// The length of the non-ASCII character at `at`, or `nil` for one YAML refuses or libyaml reads
    /// as a line break or byte order mark (the input is valid UTF-8).
    @inline(__always) func characterLength(_ at: Int) -> Int? {
        let b = base[at]
        switch b {
        case 0xC2: return byte(at + 1) >= 0xA0 ? 2 : nil
        case 0xC3 ... 0xDF: return 2
        case 0xE2: return byte(at + 1) == 0x80 && (byte(at + 2) == 0xA8 || byte(at + 2) == 0xA9) ? nil : 3
        case 0xEF:
            let b1 = byte(at + 1), b2 = byte(at + 2)
            if b1 == 0xBB && b2 == 0xBF { return nil }
            if b1 == 0xBF && (b2 == 0xBE || b2 == 0xBF) { return nil }
            return 3
        case 0xE0 ... 0xEF: return 3
        case 0xF0 ... 0xF4: return 4
        default: return nil
        }
    }

    mutating func skipSpaces() {
        while i < count && base[i] == 0x20 { i += 1 }
    }

    /// Consumes the end of a line (after spaces, `hadSpace`): the line break, a comment (which
    /// needs a space before its `#`) or the end of the input. `false` for anything else.
    mutating func endLine(afterSpace hadSpace: Bool) -> Bool {
        guard i < count else { return true }
        switch base[i] {
        case 0x0A:
            i += 1
            return true
        case 0x0D:
            guard byte(i + 1) == 0x0A else { return false }
            i += 2
            return true
        case 0x23:
            return hadSpace && skipComment()
        default:
            return false
        }
    }

    /// Skips a comment through its line break; `false` for a character YAML refuses in it.
    mutating func skipComment() -> Bool {
        while i < count {
            let b = base[i]
            switch table[Int(b)] {
            case 0, 1, 2: i += 1
            case 3:
                if b == 0x0A {
                    i += 1
                    return true
                }
                guard byte(i + 1) == 0x0A else { return false }
                i += 2
                return true
            case 4:
                guard let length = characterLength(i) else { return false }
                i += length
            default:
                guard b == 0x09 else { return false }
                i += 1
            }
        }
        return true
    }

    /// Spaces, then the end of the line; `false` for anything else.
    mutating func finishLine() -> Bool {
        let before = i
        skipSpaces()
        return endLine(afterSpace: i > before)
    }

    // MARK: Scalars

    /// Scans the scalar at the cursor and moves past it; `nil` for anything that is not a
    /// single-line plain or quoted scalar of the subset.
    mutating func scanScalar() -> Scalar? {
        guard i < count else { return nil }
        switch base[i] {
        case 0x27: return scanQuoted(single: true)
        case 0x22: return scanQuoted(single: false)
        case 0x2D:
            // A plain scalar may start with `-` when a non-blank follows (`-1`); `- ` is an entry.
            guard !isBlankOrEnd(i + 1) else { return nil }
        case 0x3F, 0x3A, 0x2C, 0x5B, 0x5D, 0x7B, 0x7D, 0x23, 0x26, 0x2A, 0x21, 0x7C, 0x3E, 0x25, 0x40, 0x60:
            return nil
        default:
            break
        }
        let start = i
        var j = i
        var last = i
        while j < count {
            let b = base[j]
            switch table[Int(b)] {
            case 0:
                j += 1
                last = j
            case 1:
                // ` #` starts a comment.
                if byte(j + 1) == 0x23 { return finishPlain(start, last, j) }
                j += 1
            case 2:
                // `: ` (or `:` at the end of the line) ends a key.
                if isBlankOrEnd(j + 1) { return finishPlain(start, last, j) }
                j += 1
                last = j
            case 3:
                return finishPlain(start, last, j)
            case 4:
                guard let length = characterLength(j) else { return nil }
                j += length
                last = j
            default:
                return nil
            }
        }
        return finishPlain(start, last, j)
    }

    @inline(__always) mutating func finishPlain(_ start: Int, _ end: Int, _ stop: Int) -> Scalar? {
        guard end > start else { return nil }
        i = stop
        return Scalar(start: start, end: end, style: .plain)
    }

    /// Scans a quoted scalar that closes on its line.
    mutating func scanQuoted(single: Bool) -> Scalar? {
        let quote: UInt8 = single ? 0x27 : 0x22
        var scalar = Scalar(start: i + 1, end: i + 1, style: single ? .single : .double)
        var j = i + 1
        while j < count {
            let b = base[j]
            if b == quote {
                if single && byte(j + 1) == 0x27 {
                    scalar.escaped = true
                    j += 2
                    continue
                }
                scalar.end = j
                i = j + 1
                return scalar
            }
            if b == 0x5C && !single {
                // An escape; the escaped character is checked when the text is decoded.
                let next = byte(j + 1)
                guard next >= 0x20 && next < 0x7F else { return nil }
                scalar.escaped = true
                j += 2
                continue
            }
            switch table[Int(b)] {
            case 0, 1, 2: j += 1
            case 4:
                guard let length = characterLength(j) else { return nil }
                j += length
            default:
                guard b == 0x09 else { return nil }
                j += 1
            }
        }
        return nil
    }

    /// Appends a scalar's text: its bytes, or decoded (`''`, escapes). `false` when it does not fit
    /// or holds an escape YAML does not have.
    func appendText(_ scalar: Scalar, into out: inout TreeBuilder.Columns) -> Bool {
        let n = scalar.end - scalar.start
        guard scalar.escaped else {
            if n <= 16 && count - scalar.start >= 16 { return out.appendShortText(base + scalar.start, n) }
            return out.appendText(base + scalar.start, n)
        }
        // Decoded text is at most 3/2 of the bytes (`\L` is three bytes), written in place.
        guard 2 * n <= out.textCapacity - out.textCount else { return false }
        let to = out.text + out.textCount
        var w = 0
        var j = scalar.start
        if scalar.style == .single {
            while j < scalar.end {
                to[w] = base[j]
                w += 1
                j += base[j] == 0x27 ? 2 : 1
            }
        } else {
            while j < scalar.end {
                let b = base[j]
                guard b == 0x5C else {
                    to[w] = b
                    w += 1
                    j += 1
                    continue
                }
                let e = base[j + 1]
                j += 2
                var digits = 0
                switch e {
                case 0x30: to[w] = 0x00
                case 0x61: to[w] = 0x07
                case 0x62: to[w] = 0x08
                case 0x74, 0x09: to[w] = 0x09
                case 0x6E: to[w] = 0x0A
                case 0x76: to[w] = 0x0B
                case 0x66: to[w] = 0x0C
                case 0x72: to[w] = 0x0D
                case 0x65: to[w] = 0x1B
                case 0x20: to[w] = 0x20
                case 0x22: to[w] = 0x22
                case 0x2F: to[w] = 0x2F
                case 0x5C: to[w] = 0x5C
                case 0x4E: w = Self.encode(0x85, to, w) - 1
                case 0x5F: w = Self.encode(0xA0, to, w) - 1
                case 0x4C: w = Self.encode(0x2028, to, w) - 1
                case 0x50: w = Self.encode(0x2029, to, w) - 1
                case 0x78: digits = 2
                case 0x75: digits = 4
                case 0x55: digits = 8
                default: return false
                }
                guard digits > 0 else {
                    w += 1
                    continue
                }
                guard scalar.end - j >= digits else { return false }
                var value: UInt32 = 0
                for k in 0 ..< digits {
                    let h = base[j + k]
                    let digit: UInt8
                    switch h {
                    case 0x30 ... 0x39: digit = h - 0x30
                    case 0x41 ... 0x46: digit = h - 0x37
                    case 0x61 ... 0x66: digit = h - 0x57
                    default: return false
                    }
                    value = value << 4 | UInt32(digit)
                }
                j += digits
                guard value < 0xD800 || (value > 0xDFFF && value <= 0x10FFFF) else { return false }
                w = Self.encode(value, to, w)
            }
        }
        out.textCount += w
        return true
    }

    /// Writes `value` as UTF-8 at `to + w` (as libyaml does, any value below 0x80 as one byte);
    /// returns the position after it.
    static func encode(_ value: UInt32, _ to: UnsafeMutablePointer<UInt8>, _ w: Int) -> Int {
        switch value {
        case ..<0x80:
            to[w] = UInt8(value)
            return w + 1
        case ..<0x800:
            to[w] = UInt8(0xC0 | value >> 6)
            to[w + 1] = UInt8(0x80 | value & 0x3F)
            return w + 2
        case ..<0x10000:
            to[w] = UInt8(0xE0 | value >> 12)
            to[w + 1] = UInt8(0x80 | (value >> 6) & 0x3F)
            to[w + 2] = UInt8(0x80 | value & 0x3F)
            return w + 3
        default:
            to[w] = UInt8(0xF0 | value >> 18)
            to[w + 1] = UInt8(0x80 | (value >> 12) & 0x3F)
            to[w + 2] = UInt8(0x80 | (value >> 6) & 0x3F)
            to[w + 3] = UInt8(0x80 | value & 0x3F)
            return w + 4
        }
    }

    // MARK: Nodes

    /// Finishes the awaiting node with a scalar value: typed like the parser's scalar of that style.
    mutating func addValue(_ scalar: Scalar, into out: inout TreeBuilder.Columns) -> Bool {
        awaiting = .none
        guard scalar.style == .plain else {
            // Untagged quoted scalars are strings, as written (YAMLScalar types them so too).
            guard appendText(scalar, into: &out) else { return false }
            out.finishScalar(.string)
            return true
        }
        let text = UnsafeBufferPointer(start: base + scalar.start, count: scalar.end - scalar.start)
        guard let typed = try? YAMLScalar(text, tag: nil, isPlain: true) else { return false }
        if var converted = typed.converted {
            let fitted = converted.withUTF8 { $0.isEmpty || out.appendText($0.baseAddress!, $0.count) }
            guard fitted else { return false }
        } else if !appendText(scalar, into: &out) {
            return false
        }
        out.finishScalar(typed.kind)
        return true
    }

    /// Finishes the awaiting node as null: a key or entry with nothing after it.
    mutating func addNull(into out: inout TreeBuilder.Columns) {
        awaiting = .none
        out.finishScalar(.null)
    }

    /// Starts a node of a sequence or mapping (or the root): its key is added by the caller.
    @inline(__always) mutating func beginNode(into out: inout TreeBuilder.Columns) {
        nodes += 1
        out.beginNode()
    }

    /// Opens a mapping or sequence at `indent` as the awaiting node's value.
    mutating func open(mapping: Bool, indent: Int, into out: inout TreeBuilder.Columns) -> Bool {
        guard frames.count < YAMLReader.maxDepth else { return false }
        awaiting = .none
        out.openContainer(mapping ? .object : .array)
        frames.append(Frame(isMapping: mapping, indent: indent))
        return true
    }

    /// Closes the innermost mapping or sequence (a mapping with duplicate keys fails the build there).
    mutating func close(into out: inout TreeBuilder.Columns) -> Bool {
        frames.removeLast()
        out.closeContainer()
        return true
    }

    /// Adds the key `scalar` (followed by `:`) as a new member of the innermost mapping.
    mutating func addKey(_ scalar: Scalar, into out: inout TreeBuilder.Columns) -> Bool {
        guard i - scalar.start <= 1000 else { return false }
        beginNode(into: &out)
        let start = out.textCount
        guard appendText(scalar, into: &out) else { return false }
        let key = UnsafeBufferPointer(start: out.text + start, count: out.textCount - start)
        out.endKey()
        // A merge key, or a key that does not type (an overlong hexadecimal integer), is the parser's.
        // Only plain keys that start with a digit, `+`, `-` or `.` can fail to type (as an int or
        // float), and only `<<` is a merge key: other keys are titles as written.
        if scalar.style == .plain, let first = key.first, first == 0x3C || (first >= 0x2B && first <= 0x39 && first != 0x2C && first != 0x2F) {
            guard let typed = try? YAMLScalar(key, tag: nil, isPlain: true), !typed.isMergeKey else { return false }
        }
        return true
    }

    /// Reads what follows a key's `:`: a value on the same line, or nothing (the value starts on
    /// a later line, or is null).
    mutating func afterKey(indent: Int, into out: inout TreeBuilder.Columns) -> Bool {
        i += 1
        let before = i
        skipSpaces()
        if i == count || base[i] == 0x0A || base[i] == 0x0D || base[i] == 0x23 {
            guard endLine(afterSpace: i > before) else { return false }
            awaiting = .key
            awaitingIndent = indent
            return true
        }
        let b = base[i]
        if b == 0x5B || b == 0x7B { return emptyCollection(into: &out) }
        guard let scalar = scanScalar(), finishLine() else { return false }
        return addValue(scalar, into: &out)
    }

    /// Reads `[]` or `{}` to the end of the line as the awaiting node's value.
    mutating func emptyCollection(into out: inout TreeBuilder.Columns) -> Bool {
        let isMapping = base[i] == 0x7B
        guard byte(i + 1) == (isMapping ? 0x7D : 0x5D), frames.count < YAMLReader.maxDepth else { return false }
        i += 2
        guard finishLine() else { return false }
        awaiting = .none
        out.openContainer(isMapping ? .object : .array)
        out.closeContainer()
        return true
    }

    /// Reads a sequence entry at the cursor's `-`, in the innermost sequence (at `indent`).
    mutating func entry(indent: Int, into out: inout TreeBuilder.Columns) -> Bool {
        guard let column = beginEntry(indent: indent, into: &out) else { return false }
        return column < 0 || value(column: column, into: &out)
    }

    /// Starts a sequence entry at the cursor's `-`: the column of its value on the same line, or
    /// -1 when the line ends there (its value comes later); `nil` to give up.
    mutating func beginEntry(indent: Int, into out: inout TreeBuilder.Columns) -> Int? {
        i += 1
        beginNode(into: &out)
        out.endKey()
        let before = i
        skipSpaces()
        if i == count || base[i] == 0x0A || base[i] == 0x0D || base[i] == 0x23 {
            guard endLine(afterSpace: i > before) else { return nil }
            awaiting = .item
            awaitingIndent = indent
            return -1
        }
        return i - lineStart
    }

    /// Reads the awaiting node's value, which starts at the cursor (at `column`): a sequence, a
    /// mapping, `[]`, `{}` or a scalar.
    /// A loop, not recursion: `- - - x` nests a sequence per dash, up to the nesting limit.
    mutating func value(column: Int, into out: inout TreeBuilder.Columns) -> Bool {
        var column = column
        var b = base[i]
        while b == 0x2D && isBlankOrEnd(i + 1) {
            guard open(mapping: false, indent: column, into: &out), let next = beginEntry(indent: column, into: &out) else { return false }
            if next < 0 { return true }
            column = next
            b = base[i]
        }
        if b == 0x5B || b == 0x7B { return emptyCollection(into: &out) }
        guard let scalar = scanScalar() else { return false }
        let stop = i
        skipSpaces()
        if i < count && base[i] == 0x3A && isBlankOrEnd(i + 1) {
            guard open(mapping: true, indent: column, into: &out), addKey(scalar, into: &out) else { return false }
            return afterKey(indent: column, into: &out)
        }
        guard endLine(afterSpace: i > stop) else { return false }
        return addValue(scalar, into: &out)
    }

    /// Reads a line at the indentation of the innermost mapping: `key: value`.
    mutating func member(indent: Int, into out: inout TreeBuilder.Columns) -> Bool {
        guard let scalar = scanScalar() else { return false }
        skipSpaces()
        guard i < count && base[i] == 0x3A && isBlankOrEnd(i + 1), addKey(scalar, into: &out) else { return false }
        return afterKey(indent: indent, into: &out)
    }

    /// Reads the document line by line; `false` to give up.
    mutating func fill(into out: inout TreeBuilder.Columns) -> Bool {
        beginNode(into: &out)
        out.endKey()
        var started = false
        while true {
            lineStart = i
            skipSpaces()
            guard i < count else { break }
            let b = base[i]
            if b == 0x0A || b == 0x0D || b == 0x23 {
                guard endLine(afterSpace: true) else { return false }
                continue
            }
            let column = i - lineStart
            if column == 0 && (b == 0x2D || b == 0x2E) && byte(i + 1) == b && byte(i + 2) == b {
                // `---` starts the document (only once, before its value, alone on its line); `...` ends it.
                guard b == 0x2D, !started, awaiting == .root, isBlankOrEnd(i + 3) else { return false }
                i += 3
                started = true
                guard finishLine() else { return false }
                continue
            }
            started = true
            switch awaiting {
            case .root:
                guard value(column: column, into: &out) else { return false }
                continue
            case .key:
                if column > awaitingIndent {
                    guard value(column: column, into: &out) else { return false }
                    continue
                }
                // A sequence may sit at its key's indentation.
                if column == awaitingIndent && b == 0x2D && isBlankOrEnd(i + 1) {
                    guard open(mapping: false, indent: column, into: &out), entry(indent: column, into: &out) else { return false }
                    continue
                }
                addNull(into: &out)
            case .item:
                if column > awaitingIndent {
                    guard value(column: column, into: &out) else { return false }
                    continue
                }
                addNull(into: &out)
            case .none:
                break
            }
            let isEntry = b == 0x2D && isBlankOrEnd(i + 1)
            // Close what this line's indentation ends (a sequence at its key's indentation ends at the next key).
            while let top = frames.last, top.indent > column || (top.indent == column && !top.isMapping && !isEntry) {
                guard close(into: &out) else { return false }
            }
            guard let top = frames.last, top.indent == column else { return false }
            if top.isMapping {
                guard !isEntry, member(indent: column, into: &out) else { return false }
            } else {
                guard entry(indent: column, into: &out) else { return false }
            }
        }
        switch awaiting {
        case .root: return false
        case .key, .item: addNull(into: &out)
        case .none: break
        }
        while !frames.isEmpty {
            guard close(into: &out) else { return false }
        }
        return true
    }
}
