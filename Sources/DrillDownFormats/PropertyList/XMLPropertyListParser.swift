import DrillDownCore

/// The state of one XML property-list parse.
struct XMLPropertyListParser {
    let base: UnsafePointer<UInt8>
    let end: UnsafePointer<UInt8>
    var p: UnsafePointer<UInt8>
    var builder: TreeBuilder
    /// Open `<dict>`/`<array>` elements, innermost last: `offset << 1 | isDict`.
    var open: [Int] = []
    /// Where the `<key>` tags of the open dicts start, innermost dict's last; and per open
    /// element, where its keys start in this list.
    var keyOffsets: [Int] = []
    var keyMarks: [Int] = []

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        end = base + count
        p = base
        builder = TreeBuilder(expectedNodes: count / 40 + 16, expectedTextBytes: count / 4 + 16)
    }

    mutating func parse() throws(ParseFailure) -> TreeStore {
        if end - p >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF { p += 3 }
        guard var tag = try nextTag(context: "the document") else {
            throw failure(at: p, "empty document; expected <plist>")
        }
        var plistTag: XMLTag?
        if tag.is("plist") && !tag.isClose {
            if tag.isEmpty { throw failure(at: tag.offset, "empty <plist/>; expected a value inside <plist>") }
            plistTag = tag
            guard let inner = try nextTag(context: "<plist>") else {
                throw failure(at: p, "unclosed <plist> opened at \(location(tag.offset)); expected a value")
            }
            if inner.isClose && inner.is("plist") {
                throw failure(at: inner.offset, "empty <plist>; expected a value such as <dict> or <array>")
            }
            tag = inner
        }
        builder.beginNode()
        builder.endKey()
        try value(tag)
        while let top = open.last {
            guard let tag = try nextTag(context: top & 1 == 1 ? "<dict>" : "<array>") else {
                throw failure(at: p, "unclosed \(top & 1 == 1 ? "<dict>" : "<array>") opened at \(location(top >> 1)); found end of input")
            }
            if tag.isClose {
                let expected: StaticString = top & 1 == 1 ? "dict" : "array"
                guard tag.is(expected) else {
                    throw failure(at: tag.offset, "expected </\(expected)> to close <\(expected)> opened at \(location(top >> 1)), found \(tag.display)")
                }
                open.removeLast()
                let mark = keyMarks.removeLast()
                if top & 1 == 1, keyOffsets.count - mark > 1, let (later, earlier) = builder.duplicateKeyInOpenContainer() {
                    throw ParseFailure.duplicateKey(
                        builder.keyInOpenContainer(later), at: keyOffsets[mark + later], earlier: keyOffsets[mark + earlier],
                        in: "<dict>", bytes: UnsafeBufferPointer(start: base, count: end - base))
                }
                keyOffsets.removeSubrange(mark...)
                builder.closeContainer()
                continue
            }
            builder.beginNode()
            if top & 1 == 1 {
                guard tag.is("key") else {
                    throw failure(at: tag.offset, "expected <key> in <dict>, found \(tag.display)")
                }
                keyOffsets.append(tag.offset)
                let keyStart = builder.text.count
                if !tag.isEmpty { try text(of: tag) }
                builder.endKey()
                let next = try nextTag(context: "<dict>")
                guard let valueTag = next, !valueTag.isClose else {
                    let key = String(decoding: builder.text[keyStart...], as: UTF8.self)
                    throw failure(at: next?.offset ?? (p - base), "expected a value after <key>\(key)</key>, found \(next?.display ?? "end of input")")
                }
                try value(valueTag)
            } else {
                builder.endKey()
                try value(tag)
            }
        }
        if let plistTag {
            guard let close = try nextTag(context: "<plist>") else {
                throw failure(at: p, "unclosed <plist> opened at \(location(plistTag.offset)); expected </plist>")
            }
            guard close.isClose && close.is("plist") else {
                throw failure(at: close.offset, "expected </plist> after the top-level value, found \(close.display)")
            }
        }
        if let extra = try nextTag(context: "the document") {
            throw failure(at: extra.offset, "unexpected \(extra.display) after the end of the property list")
        }
        guard builder.text.count < Int(UInt32.max) else { throw failure(at: base, "document too large: more than 4 GiB of text") }
        return builder.build()
    }

    /// Reads the value that starts with `tag` (a container only opens; its members follow).
    mutating func value(_ tag: XMLTag) throws(ParseFailure) {
        if tag.isClose {
            throw failure(at: tag.offset, "expected a value, found \(tag.display)")
        }
        if tag.is("dict") || tag.is("array") {
            let isDict = tag.is("dict")
            builder.openContainer(isDict ? .object : .array)
            if tag.isEmpty {
                builder.closeContainer()
            } else {
                guard open.count < XMLPropertyListReader.maxDepth else {
                    throw failure(at: tag.offset, "nesting deeper than \(XMLPropertyListReader.maxDepth) levels")
                }
                open.append(tag.offset << 1 | (isDict ? 1 : 0))
                keyMarks.append(keyOffsets.count)
            }
            return
        }
        if tag.is("true") || tag.is("false") {
            if !tag.isEmpty {
                guard let close = try nextTag(context: tag.display), close.isClose, close.name.elementsEqual(tag.name) else {
                    throw failure(at: p, "expected </\(tag.nameText)> right after \(tag.display)")
                }
            }
            builder.appendText(tag.is("true") ? "true" : "false")
            builder.finishScalar(.bool)
            return
        }
        let kind: ValueKind
        if tag.is("string") {
            kind = .string
        } else if tag.is("integer") {
            kind = .integer
        } else if tag.is("real") {
            kind = .real
        } else if tag.is("date") {
            kind = .date
        } else if tag.is("data") {
            kind = .data
        } else if tag.is("key") {
            throw failure(at: tag.offset, "unexpected <key> outside a <dict>")
        } else {
            throw failure(at: tag.offset, "unexpected tag \(tag.display); expected a value: <dict>, <array>, <string>, <integer>, <real>, <true/>, <false/>, <date> or <data>")
        }
        let start = builder.text.count
        if !tag.isEmpty { try text(of: tag) }
        if kind != .string { try normalize(kind, from: start, tag: tag) }
        builder.finishScalar(kind)
    }

    /// Replaces the text of a number, date or data element with its canonical form.
    mutating func normalize(_ kind: ValueKind, from start: Int, tag: XMLTag) throws(ParseFailure) {
        let text = trimmedText(from: start)
        let canonical: String?
        switch kind {
        case .integer: canonical = PropertyListNumbers.integer(text)
        case .real: canonical = PropertyListNumbers.real(text)
        case .date: canonical = PropertyListDate.normalize(text.utf8)
        case .data: canonical = Base64.normalize(text.utf8).map { String(decoding: $0, as: UTF8.self) }
        default: canonical = text
        }
        guard let canonical else {
            let expected = switch kind {
            case .integer: "a decimal integer"
            case .real: "a number"
            case .date: "an ISO 8601 date like 2001-01-01T00:00:00Z"
            default: "base64 data"
            }
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            throw failure(at: tag.offset, "invalid \(tag.display) '\(shown)'; expected \(expected)")
        }
        builder.discardValueText()
        builder.appendText(canonical)
    }

    /// The builder's text from `start` on without surrounding whitespace, as a new string (so
    /// that no slice keeps the text buffer shared while the builder goes on appending to it).
    func trimmedText(from start: Int) -> String {
        var lower = start
        var upper = builder.text.count
        while lower < upper && isSpace(builder.text[lower]) { lower += 1 }
        while upper > lower && isSpace(builder.text[upper - 1]) { upper -= 1 }
        return String(decoding: builder.text[lower ..< upper], as: UTF8.self)
    }

    // MARK: Tokenizer

    /// The next start or end tag, skipping whitespace, comments, processing instructions and
    /// the DOCTYPE; `nil` at the end of input. Text other than whitespace is an error.
    mutating func nextTag(context: String) throws(ParseFailure) -> XMLTag? {
        while true {
            while p < end && isSpace(p.pointee) { p += 1 }
            guard p < end else { return nil }
            guard p.pointee == 0x3C else {
                let start = p
                var q = p
                while q < end && q.pointee != 0x3C && q.pointee != 0x0A && q - start < 30 { q += 1 }
                let snippet = String(decoding: UnsafeBufferPointer(start: start, count: q - start), as: UTF8.self)
                throw failure(at: p, "unexpected text '\(snippet)' in \(context); expected a tag")
            }
            if try skipMarkupDeclaration() { continue }
            return try tag()
        }
    }

    /// Skips `<!-- -->`, `<? ?>` or `<!DOCTYPE …>` at the cursor; `false` when the cursor is at a tag.
    mutating func skipMarkupDeclaration() throws(ParseFailure) -> Bool {
        let start = p
        if starts(with: "<!--") {
            guard let close = find("-->", from: p + 4) else { throw failure(at: start, "unterminated comment; expected '-->'") }
            p = close + 3
            return true
        }
        if starts(with: "<?") {
            guard let close = find("?>", from: p + 2) else { throw failure(at: start, "unterminated processing instruction; expected '?>'") }
            p = close + 2
            return true
        }
        if starts(with: "<!DOCTYPE") || starts(with: "<!doctype") {
            var depth = 0
            p += 9
            while p < end {
                let c = p.pointee
                p += 1
                if c == 0x5B { depth += 1 } else if c == 0x5D { depth -= 1 } else if c == 0x3E && depth <= 0 { return true }
                if c == 0x22 || c == 0x27 {
                    while p < end && p.pointee != c { p += 1 }
                    p += 1
                }
            }
            throw failure(at: start, "unterminated <!DOCTYPE>; expected '>'")
        }
        return false
    }

    /// Reads a tag at the cursor (`<name attr="…">`, `</name>` or `<name/>`).
    mutating func tag() throws(ParseFailure) -> XMLTag {
        let start = p
        p += 1
        let isClose = p < end && p.pointee == 0x2F
        if isClose { p += 1 }
        let nameStart = p
        while p < end && isNameByte(p.pointee) { p += 1 }
        guard p > nameStart else { throw failure(at: start, "expected a tag name after '<', found \(found(p))") }
        let name = UnsafeBufferPointer(start: nameStart, count: p - nameStart)
        var isEmpty = false
        while true {
            guard p < end else { throw failure(at: start, "unterminated tag; expected '>'") }
            let c = p.pointee
            if c == 0x3E {
                p += 1
                break
            }
            if c == 0x2F && !isClose && p + 1 < end && p[1] == 0x3E {
                p += 2
                isEmpty = true
                break
            }
            if c == 0x22 || c == 0x27 {
                p += 1
                while p < end && p.pointee != c { p += 1 }
                guard p < end else { throw failure(at: start, "unterminated attribute value in tag") }
            } else if c == 0x3C {
                throw failure(at: p, "expected '>' to end the tag opened at \(location(start - base)), found '<'")
            }
            p += 1
        }
        return XMLTag(name: name, offset: start - base, isClose: isClose, isEmpty: isEmpty)
    }

    /// Appends the character data of element `tag` (up to its end tag) to the builder's text,
    /// decoding entities and CDATA and normalizing line breaks to `\n`.
    mutating func text(of tag: XMLTag) throws(ParseFailure) {
        var run = p
        while true {
            while p < end {
                let c = p.pointee
                if c == 0x3C || c == 0x26 || c == 0x0D { break }
                p += 1
            }
            builder.appendText(UnsafeBufferPointer(start: run, count: p - run))
            guard p < end else {
                throw failure(at: tag.offset, "unclosed \(tag.display) opened at \(location(tag.offset)); found end of input")
            }
            switch p.pointee {
            case 0x0D:
                builder.appendText(0x0A)
                p += 1
                if p < end && p.pointee == 0x0A { p += 1 }
            case 0x26:
                try entity()
            default:
                if starts(with: "<![CDATA[") {
                    guard let close = find("]]>", from: p + 9) else { throw failure(at: p, "unterminated CDATA section; expected ']]>'") }
                    builder.appendText(UnsafeBufferPointer(start: p + 9, count: close - (p + 9)))
                    p = close + 3
                } else if starts(with: "<!--") {
                    guard let close = find("-->", from: p + 4) else { throw failure(at: p, "unterminated comment; expected '-->'") }
                    p = close + 3
                } else {
                    let inner = try self.tag()
                    guard inner.isClose, inner.name.elementsEqual(tag.name) else {
                        throw failure(at: inner.offset, "expected </\(tag.nameText)> to close \(tag.display) opened at \(location(tag.offset)), found \(inner.display)")
                    }
                    return
                }
            }
            run = p
        }
    }

    /// Decodes `&name;` or `&#…;` at the cursor into the builder's text.
    mutating func entity() throws(ParseFailure) {
        let start = p
        p += 1
        var q = p
        while q < end && q.pointee != 0x3B && q - p < 12 { q += 1 }
        guard q < end, q.pointee == 0x3B else {
            throw failure(at: start, "'&' must start an entity such as &amp; (write a literal '&' as &amp;)")
        }
        let name = UnsafeBufferPointer(start: p, count: q - p)
        p = q + 1
        func named(_ literal: StaticString) -> Bool { literal.withUTF8Buffer { name.elementsEqual($0) } }
        if named("lt") {
            builder.appendText(0x3C)
        } else if named("gt") {
            builder.appendText(0x3E)
        } else if named("amp") {
            builder.appendText(0x26)
        } else if named("quot") {
            builder.appendText(0x22)
        } else if named("apos") {
            builder.appendText(0x27)
        } else if name.first == 0x23 {
            let isHex = name.count > 1 && (name[1] == 0x78 || name[1] == 0x58)
            let digits = String(decoding: name.dropFirst(isHex ? 2 : 1), as: UTF8.self)
            guard let value = UInt32(digits, radix: isHex ? 16 : 10), value <= 0x10FFFF,
                  !(0xD800 ... 0xDFFF).contains(value) else {
                throw failure(at: start, "invalid character reference &\(String(decoding: name, as: UTF8.self));")
            }
            UTF8Validation.append(value, to: &builder.text)
        } else {
            throw failure(at: start, "unknown entity &\(String(decoding: name, as: UTF8.self)); expected &lt; &gt; &amp; &quot; &apos; or &#N;")
        }
    }

    // MARK: Bytes

    @inline(__always) func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x3A || c == 0x2D || c == 0x2E
    }

    func starts(with literal: StaticString) -> Bool {
        literal.withUTF8Buffer { lit in
            guard end - p >= lit.count else { return false }
            for i in 0 ..< lit.count where p[i] != lit[i] { return false }
            return true
        }
    }

    func find(_ literal: StaticString, from start: UnsafePointer<UInt8>) -> UnsafePointer<UInt8>? {
        literal.withUTF8Buffer { lit -> UnsafePointer<UInt8>? in
            var q = start
            while end - q >= lit.count {
                if q.pointee == lit[0] {
                    var match = true
                    for i in 1 ..< lit.count where q[i] != lit[i] {
                        match = false
                        break
                    }
                    if match { return q }
                }
                q += 1
            }
            return nil
        }
    }

    func failure(at offset: Int, _ message: String) -> ParseFailure { ParseFailure(offset: offset, message) }
    func failure(at position: UnsafePointer<UInt8>, _ message: String) -> ParseFailure { ParseFailure(offset: position - base, message) }
    func location(_ offset: Int) -> String { SourceLocation.text(of: offset, in: UnsafeBufferPointer(start: base, count: end - base)) }
    func found(_ position: UnsafePointer<UInt8>) -> String { SourceLocation.describe(position - base, in: UnsafeBufferPointer(start: base, count: end - base)) }
}
