#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DrillDownCore

/// The fast path of the XML property-list reader: one pass over the bytes that writes every node
/// straight into the store's columns (``TreeBuilder/Columns``), allocated once from the input's
/// length, with no `String`, array or tag object per element.
///
/// Tag names are compared as one 8-byte word, text is copied to the store in 8-byte steps up to
/// the next `<`, `&` or carriage return, and decimal integers and JSON-style reals are checked and
/// written in place. It reads the shape property lists have in practice (declarations, a DOCTYPE,
/// comments between tags, attributes, the named entities and character references) and declines,
/// returning `nil`, on anything else: every error, CDATA, a comment or carriage return inside text,
/// a hex integer, a real that is not a JSON number, nesting at the depth limit. The reader then
/// reads the input again with ``XMLPropertyListParser``, which reports errors with their line and
/// column, so on every input this parser accepts the two build the same tree
/// (`XMLPropertyListDifferentialTests`).
struct XMLPropertyListFastParser {
    /// The parse stops here, for errors and input this path leaves to ``XMLPropertyListParser``.
    struct Decline: Error {}

    /// A start or end tag: its name as a little-endian word (names longer than 8 bytes are 0).
    struct Tag {
        var name: UInt64
        var isClose: Bool
        var isEmpty: Bool
    }

    /// Tag names as words (`"dict"` is `0x74636964`); `XMLPropertyListDifferentialTests` checks them.
    enum Name {
        static let dict: UInt64 = 0x7463_6964
        static let array: UInt64 = 0x79_6172_7261
        static let string: UInt64 = 0x676E_6972_7473
        static let integer: UInt64 = 0x72_6567_6574_6E69
        static let real: UInt64 = 0x6C61_6572
        static let `true`: UInt64 = 0x6575_7274
        static let `false`: UInt64 = 0x65_736C_6166
        static let date: UInt64 = 0x6574_6164
        static let data: UInt64 = 0x6174_6164
        static let key: UInt64 = 0x79_656B
        static let plist: UInt64 = 0x74_7369_6C70
    }

    let end: UnsafePointer<UInt8>
    var p: UnsafePointer<UInt8>
    /// Whether each open container is a `<dict>`, outermost first.
    let isDict: UnsafeMutablePointer<Bool>
    var depth = 0

    /// The tree of `buffer` (valid UTF-8), or `nil` when the input needs the full parser.
    static func read(_ buffer: UnsafeBufferPointer<UInt8>) throws(ReservationFailure) -> TreeStore? {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
        let count = buffer.count
        let isDict = UnsafeMutablePointer<Bool>.allocate(capacity: XMLPropertyListReader.maxDepth)
        defer { isDict.deallocate() }
        // Every node but the root starts with a tag of at least 7 bytes (`<true/>`), and no
        // element's text is longer than the element; an input past either bound is declined.
        let nodes = TreeBuilder.nodeCapacity(atMost: count / 7 + 2, textCapacity: count + 64) { NodeBound.xml(buffer) }
        return try TreeBuilder.build(nodeCapacity: nodes, textCapacity: count + 64) { columns in
            var parser = XMLPropertyListFastParser(end: base + count, p: base, isDict: isDict)
            do throws(Decline) {
                try parser.parse(&columns)
                return columns.textCount < Int(UInt32.max)
            } catch {
                return false
            }
        }
    }

    mutating func parse(_ c: inout TreeBuilder.Columns) throws(Decline) {
        if end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF { p += 3 }
        guard var tag = try nextTag() else { throw Decline() }
        let inPlist = tag.name == Name.plist && !tag.isClose
        if inPlist {
            guard !tag.isEmpty, let inner = try nextTag() else { throw Decline() }
            tag = inner
        }
        c.beginNode()
        c.endKey()
        try value(tag, &c)
        while depth > 0 {
            guard let tag = try nextTag() else { throw Decline() }
            let inDict = isDict[depth - 1]
            if tag.isClose {
                guard tag.name == (inDict ? Name.dict : Name.array) else { throw Decline() }
                depth -= 1
                c.closeContainer()
                continue
            }
            c.beginNode()
            if inDict {
                guard tag.name == Name.key else { throw Decline() }
                if !tag.isEmpty { try text(closing: Name.key, &c) }
                c.endKey()
                guard let valueTag = try nextTag() else { throw Decline() }
                try value(valueTag, &c)
            } else {
                c.endKey()
                try value(tag, &c)
            }
        }
        if inPlist {
            guard let close = try nextTag(), close.isClose, close.name == Name.plist else { throw Decline() }
        }
        guard try nextTag() == nil else { throw Decline() }
    }

    /// Reads the value that starts with `tag` (a container only opens; its members follow).
    mutating func value(_ tag: Tag, _ c: inout TreeBuilder.Columns) throws(Decline) {
        guard !tag.isClose else { throw Decline() }
        switch tag.name {
        case Name.dict, Name.array:
            let dict = tag.name == Name.dict
            c.openContainer(dict ? .object : .array)
            if tag.isEmpty {
                c.closeContainer()
            } else {
                guard depth < XMLPropertyListReader.maxDepth else { throw Decline() }
                isDict[depth] = dict
                depth += 1
            }
        case Name.string:
            if !tag.isEmpty { try text(closing: Name.string, &c) }
            c.finishScalar(.string)
        case Name.integer:
            guard !tag.isEmpty else { throw Decline() }
            try integer(&c)
            c.finishScalar(.integer)
        case Name.real:
            guard !tag.isEmpty else { throw Decline() }
            try real(&c)
            c.finishScalar(.real)
        case Name.true, Name.false:
            if !tag.isEmpty {
                guard let close = try nextTag(), close.isClose, close.name == tag.name else { throw Decline() }
            }
            let word: StaticString = tag.name == Name.true ? "true" : "false"
            guard c.appendText(word.utf8Start, word.utf8CodeUnitCount) else { throw Decline() }
            c.finishScalar(.bool)
        case Name.date, Name.data:
            let isDate = tag.name == Name.date
            var content = UnsafeBufferPointer<UInt8>(start: p, count: 0)
            if !tag.isEmpty { content = try plainContent(closing: tag.name) }
            if isDate {
                guard let canonical = PropertyListDate.normalize(content) else { throw Decline() }
                var utf8 = canonical
                guard utf8.withUTF8({ c.appendText($0.baseAddress!, $0.count) }) else { throw Decline() }
                c.finishScalar(.date)
            } else {
                guard let canonical = Base64.normalize(content) else { throw Decline() }
                guard canonical.withUnsafeBufferPointer({ $0.isEmpty || c.appendText($0.baseAddress!, $0.count) }) else { throw Decline() }
                c.finishScalar(.data)
            }
        default:
            throw Decline()
        }
    }

    // MARK: Element content

    /// Copies character data up to `</name>` into the store, decoding entities.
    mutating func text(closing name: UInt64, _ c: inout TreeBuilder.Columns) throws(Decline) {
        while true {
            let run = p
            p = Self.special(from: p, to: end)
            let n = p - run
            guard n <= c.textCapacity &- c.textCount else { throw Decline() }
            (c.text + c.textCount).update(from: run, count: n)
            c.textCount &+= n
            guard p < end else { throw Decline() }
            if p.pointee == 0x26 {
                try entity(&c)
                continue
            }
            guard p.pointee == 0x3C, let close = try tag(), close.isClose, close.name == name else { throw Decline() }
            return
        }
    }

    /// The content up to `</name>` without surrounding whitespace, when it has no markup or entity.
    mutating func plainContent(closing name: UInt64) throws(Decline) -> UnsafeBufferPointer<UInt8> {
        var lower = p
        p = Self.special(from: p, to: end)
        guard p < end, p.pointee == 0x3C else { throw Decline() }
        var upper = p
        guard let close = try tag(), close.isClose, close.name == name else { throw Decline() }
        while lower < upper && Self.isSpace(lower.pointee) { lower += 1 }
        while upper > lower && Self.isSpace(upper[-1]) { upper -= 1 }
        return UnsafeBufferPointer(start: lower, count: upper - lower)
    }

    /// An `<integer>`'s content in decimal, written canonically: no `+`, no leading zeros, no `-0`.
    mutating func integer(_ c: inout TreeBuilder.Columns) throws(Decline) {
        while p < end && Self.isSpace(p.pointee) { p += 1 }
        guard p < end else { throw Decline() }
        let negative = p.pointee == 0x2D
        if negative || p.pointee == 0x2B { p += 1 }
        let digits = p
        while p < end && p.pointee &- 0x30 < 10 { p += 1 }
        guard p > digits else { throw Decline() }
        var first = digits
        while first < p - 1 && first.pointee == 0x30 { first += 1 }
        let n = p - first
        let sign = negative && !(n == 1 && first.pointee == 0x30) ? 1 : 0
        while p < end && Self.isSpace(p.pointee) { p += 1 }
        guard p < end, p.pointee == 0x3C, let close = try tag(), close.isClose, close.name == Name.integer else { throw Decline() }
        guard n + sign <= c.textCapacity &- c.textCount else { throw Decline() }
        if sign == 1 { c.text[c.textCount] = 0x2D }
        (c.text + c.textCount + sign).update(from: first, count: n)
        c.textCount &+= n + sign
    }

    /// A `<real>`'s content when it is a JSON-style number, which is its canonical text.
    mutating func real(_ c: inout TreeBuilder.Columns) throws(Decline) {
        let number = try plainContent(closing: Name.real)
        guard Self.isJSONNumber(number), c.appendText(number.baseAddress!, number.count) else { throw Decline() }
    }

    /// Decodes `&name;` or `&#…;` at the cursor into the store.
    mutating func entity(_ c: inout TreeBuilder.Columns) throws(Decline) {
        let name = p + 1
        var q = name
        while q < end && q.pointee != 0x3B && q - name < 12 { q += 1 }
        guard q < end, q.pointee == 0x3B else { throw Decline() }
        let n = q - name
        p = q + 1
        var scalar: UInt32
        switch n {
        case 2 where name[1] == 0x74 && (name[0] == 0x6C || name[0] == 0x67): scalar = name[0] == 0x6C ? 0x3C : 0x3E  // lt gt
        case 3 where name[0] == 0x61 && name[1] == 0x6D && name[2] == 0x70: scalar = 0x26  // amp
        case 4 where name[0] == 0x71 && name[1] == 0x75 && name[2] == 0x6F && name[3] == 0x74: scalar = 0x22  // quot
        case 4 where name[0] == 0x61 && name[1] == 0x70 && name[2] == 0x6F && name[3] == 0x73: scalar = 0x27  // apos
        default:
            guard n >= 2, name[0] == 0x23 else { throw Decline() }
            let hex = name[1] | 0x20 == 0x78
            var i = hex ? 2 : 1
            guard i < n else { throw Decline() }
            scalar = 0
            while i < n {
                let b = name[i]
                let digit: UInt32
                if b &- 0x30 < 10 {
                    digit = UInt32(b &- 0x30)
                } else if hex && (b | 0x20) &- 0x61 < 6 {
                    digit = UInt32((b | 0x20) &- 0x61 + 10)
                } else {
                    throw Decline()
                }
                scalar = scalar &* (hex ? 16 : 10) &+ digit
                guard scalar <= 0x10FFFF else { throw Decline() }
                i += 1
            }
            guard scalar < 0xD800 || scalar > 0xDFFF else { throw Decline() }
        }
        guard c.textCapacity &- c.textCount >= 4 else { throw Decline() }
        let out = c.text + c.textCount
        if scalar < 0x80 {
            out[0] = UInt8(scalar)
            c.textCount &+= 1
        } else if scalar < 0x800 {
            out[0] = UInt8(0xC0 | scalar >> 6)
            out[1] = UInt8(0x80 | scalar & 0x3F)
            c.textCount &+= 2
        } else if scalar < 0x10000 {
            out[0] = UInt8(0xE0 | scalar >> 12)
            out[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[2] = UInt8(0x80 | scalar & 0x3F)
            c.textCount &+= 3
        } else {
            out[0] = UInt8(0xF0 | scalar >> 18)
            out[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            out[2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            out[3] = UInt8(0x80 | scalar & 0x3F)
            c.textCount &+= 4
        }
    }

    // MARK: Tags

    /// The next start or end tag after whitespace, comments, processing instructions and DOCTYPEs;
    /// `nil` at the end of input.
    mutating func nextTag() throws(Decline) -> Tag? {
        while true {
            p = Self.skipSpace(from: p, to: end)
            guard p < end else { return nil }
            guard p.pointee == 0x3C else { throw Decline() }
            if let tag = try tag() { return tag }
        }
    }

    /// Reads the tag at the cursor (`<`); `nil` after skipping a comment, processing instruction or DOCTYPE.
    mutating func tag() throws(Decline) -> Tag? {
        p += 1
        guard p < end else { throw Decline() }
        var isClose = false
        switch p.pointee {
        case 0x2F:
            isClose = true
            p += 1
        case 0x21, 0x3F:
            try skipDeclaration()
            return nil
        default:
            break
        }
        let nameStart = p
        if end - p >= 8 {
            let word = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            // A plist tag's name is lowercase letters up to `>` or `/`: found for all 8 bytes at once.
            let stop = Self.zeroBytes(word ^ 0x3E3E_3E3E_3E3E_3E3E) | Self.zeroBytes(word ^ 0x2F2F_2F2F_2F2F_2F2F)
            if stop != 0 {
                let n = stop.trailingZeroBitCount / 8
                let mask: UInt64 = (1 << UInt64(8 * n)) &- 1
                if n > 0 && Self.lowercaseBytes(word) & mask == 0x8080_8080_8080_8080 & mask {
                    p += n
                    return try tagEnd(name: word & mask, isClose: isClose)
                }
            }
            // Otherwise the name ends at the first byte that cannot be in a name.
            var n = 0
            while n < 8 && Self.isNameByte(UInt8(truncatingIfNeeded: word >> UInt64(8 * n))) { n += 1 }
            p += n
            guard n > 0 && n < 8 else { throw Decline() }
            return try tagEnd(name: word & (1 << UInt64(8 * n) - 1), isClose: isClose)
        }
        var name: UInt64 = 0
        while p < end && Self.isNameByte(p.pointee) {
            guard p - nameStart < 7 else { throw Decline() }
            name |= UInt64(p.pointee) << UInt64(8 * (p - nameStart))
            p += 1
        }
        guard p > nameStart else { throw Decline() }
        return try tagEnd(name: name, isClose: isClose)
    }

    /// Reads the rest of a tag after its name: attributes, then `>` or `/>`.
    @inline(__always)
    mutating func tagEnd(name: UInt64, isClose: Bool) throws(Decline) -> Tag {
        if p < end && p.pointee == 0x3E {
            p += 1
            return Tag(name: name, isClose: isClose, isEmpty: false)
        }
        while p < end {
            let c = p.pointee
            if c == 0x3E {
                p += 1
                return Tag(name: name, isClose: isClose, isEmpty: false)
            }
            if c == 0x2F && !isClose && end - p >= 2 && p[1] == 0x3E {
                p += 2
                return Tag(name: name, isClose: isClose, isEmpty: true)
            }
            if c == 0x22 || c == 0x27 {
                p += 1
                while p < end && p.pointee != c { p += 1 }
                guard p < end else { throw Decline() }
            } else if c == 0x3C {
                throw Decline()
            }
            p += 1
        }
        throw Decline()
    }

    /// Skips `<!-- -->`, `<? ?>` or `<!DOCTYPE …>`, the cursor just past its `<`.
    mutating func skipDeclaration() throws(Decline) {
        if p.pointee == 0x3F {
            guard let close = find("?>", from: p + 1) else { throw Decline() }
            p = close + 2
        } else if starts(with: "!--") {
            guard let close = find("-->", from: p + 3) else { throw Decline() }
            p = close + 3
        } else if starts(with: "!DOCTYPE") || starts(with: "!doctype") {
            var depth = 0
            p += 8
            while p < end {
                let c = p.pointee
                p += 1
                if c == 0x5B { depth += 1 } else if c == 0x5D { depth -= 1 } else if c == 0x3E && depth <= 0 { return }
                if c == 0x22 || c == 0x27 {
                    while p < end && p.pointee != c { p += 1 }
                    p += 1
                }
            }
            throw Decline()
        } else {
            throw Decline()
        }
    }

    func starts(with literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        guard end - p >= n else { return false }
        for i in 0 ..< n where p[i] != literal.utf8Start[i] { return false }
        return true
    }

    func find(_ literal: StaticString, from start: UnsafePointer<UInt8>) -> UnsafePointer<UInt8>? {
        let lit = literal.utf8Start, n = literal.utf8CodeUnitCount
        var q = start
        while end - q >= n {
            guard let hit = memchr(q, Int32(lit[0]), end - q - n + 1) else { return nil }
            q = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self))
            var match = true
            for i in 1 ..< n where q[i] != lit[i] {
                match = false
                break
            }
            if match { return q }
            q += 1
        }
        return nil
    }

    // MARK: Bytes

    /// The first `<`, `&` or carriage return at or after `from`, or `to`; 8 bytes per step.
    @inline(__always)
    static func special(from: UnsafePointer<UInt8>, to end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var q = from
        while end - q >= 8 {
            let w = UnsafeRawPointer(q).loadUnaligned(as: UInt64.self)
            let hits = zeroBytes(w ^ 0x3C3C_3C3C_3C3C_3C3C) | zeroBytes(w ^ 0x2626_2626_2626_2626) | zeroBytes(w ^ 0x0D0D_0D0D_0D0D_0D0D)
            if hits != 0 { return q + hits.trailingZeroBitCount / 8 }
            q += 8
        }
        while q < end && q.pointee != 0x3C && q.pointee != 0x26 && q.pointee != 0x0D { q += 1 }
        return q
    }

    /// The first byte at or after `from` that is not XML whitespace, or `to`; 8 bytes per step
    /// (the indentation between tags).
    @inline(__always)
    static func skipSpace(from: UnsafePointer<UInt8>, to end: UnsafePointer<UInt8>) -> UnsafePointer<UInt8> {
        var q = from
        while end - q >= 8 {
            let w = UnsafeRawPointer(q).loadUnaligned(as: UInt64.self)
            let space = equalBytes(w, 0x20) | equalBytes(w, 0x0A) | equalBytes(w, 0x09) | equalBytes(w, 0x0D)
            if space != 0x8080_8080_8080_8080 { return q + (~space & 0x8080_8080_8080_8080).trailingZeroBitCount / 8 }
            q += 8
        }
        while q < end && isSpace(q.pointee) { q += 1 }
        return q
    }

    /// The high bit of each byte of `w` that equals `byte`, exactly (no carries between bytes).
    @inline(__always)
    static func equalBytes(_ w: UInt64, _ byte: UInt8) -> UInt64 {
        let x = w ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return ~(((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x) & 0x8080_8080_8080_8080
    }

    /// The high bit of each byte of `w` that is a lowercase ASCII letter, exactly.
    @inline(__always)
    static func lowercaseBytes(_ w: UInt64) -> UInt64 {
        let low = w & 0x7F7F_7F7F_7F7F_7F7F
        let atLeastA = (low &+ 0x1F1F_1F1F_1F1F_1F1F) & 0x8080_8080_8080_8080
        let belowBrace = ~(low &+ 0x0505_0505_0505_0505) & 0x8080_8080_8080_8080
        return atLeastA & belowBrace & ~w
    }

    /// The high bit of each zero byte of `w` (exact up to the first zero byte, which is all that is used).
    @inline(__always)
    static func zeroBytes(_ w: UInt64) -> UInt64 {
        (w &- 0x0101_0101_0101_0101) & ~w & 0x8080_8080_8080_8080
    }

    @inline(__always) static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    @inline(__always) static func isNameByte(_ c: UInt8) -> Bool {
        (c | 0x20) &- 0x61 < 26 || c &- 0x30 < 10 || c == 0x5F || c == 0x3A || c == 0x2D || c == 0x2E
    }

    /// Whether `bytes` is a JSON number (as `ScalarText.isJSONNumber`).
    static func isJSONNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        func digits() -> Int {
            let start = i
            while i < n && bytes[i] &- 0x30 < 10 { i += 1 }
            return i - start
        }
        if i < n && bytes[i] == 0x2D { i += 1 }
        guard i < n else { return false }
        if bytes[i] == 0x30 {
            i += 1
        } else if digits() == 0 {
            return false
        }
        if i < n && bytes[i] == 0x2E {
            i += 1
            if digits() == 0 { return false }
        }
        if i < n && bytes[i] | 0x20 == 0x65 {
            i += 1
            if i < n && (bytes[i] == 0x2B || bytes[i] == 0x2D) { i += 1 }
            if digits() == 0 { return false }
        }
        return i == n
    }
}
