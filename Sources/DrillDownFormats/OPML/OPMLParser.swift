import DrillDownCore

/// Reads OPML 2.0 (`<opml><head>…</head><body><outline …>…</outline></body></opml>`) into a tree
/// in the outline convention:
///
/// ```json
/// {"title": "Feeds", "dateCreated": "…", "rows": [
///   {"title": "Tech", "children": [{"title": "Ars", "type": "rss", "xmlUrl": "https://…"}]}]}
/// ```
///
/// The head's elements become the root's members (`<title>` its title); each `<outline>` a row
/// whose `text` is its title and whose other attributes are its attributes (as text, as written),
/// its nested outlines its `children`. An outline attribute whose name the outline convention
/// uses for structure (`title`, `name`, `children`, `items`) is kept as `opml:title` (and so on),
/// which the writer turns back.
///
/// XML is read as the property-list reader reads it: UTF-8 (UTF-16 with a byte-order mark is
/// transcoded), the five named entities and character references only (a DOCTYPE's entities are
/// never expanded), comments, processing instructions and CDATA; nesting up to
/// ``XMLPropertyListReader/maxDepth``. Every error names its line and column.
struct OPMLParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var p = 0
    var builder: TreeBuilder

    /// Attribute names kept under `opml:` because the outline convention reads them as structure.
    static let structural: Set<String> = ["title", "name", "children", "items"]
    /// The prefix of such attributes.
    static let prefix = "opml:"

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        builder = TreeBuilder(expectedNodes: bytes.count / 30 + 16, expectedTextBytes: bytes.count / 2 + 16)
    }

    static func read(_ input: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore {
        try UTF16Transcoding.withUTF8(input) { (buffer) throws(ParseFailure) -> TreeStore in
            if let bad = UTF8Validation.firstInvalidOffset(in: buffer) {
                throw ParseFailure(offset: bad, "invalid UTF-8 byte 0x\(String(buffer[bad], radix: 16, uppercase: true)); OPML must be UTF-8")
            }
            var parser = OPMLParser(buffer)
            return try parser.parse()
        }
    }

    mutating func parse() throws(ParseFailure) -> TreeStore {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p = 3 }
        guard let opml = try nextTag(in: "the document") else { throw ParseFailure(offset: p, "empty document; expected <opml>") }
        guard opml.name == "opml", !opml.isClose else { throw ParseFailure(offset: opml.offset, "expected <opml>, found \(opml.display)") }
        guard !opml.isEmpty else { throw ParseFailure(offset: opml.offset, "empty <opml/>; expected <head> and <body> inside") }
        builder.beginNode()
        builder.endKey()
        builder.openContainer(.object)
        var tag = try required(in: "<opml>")
        if tag.name == "head", !tag.isClose {
            if !tag.isEmpty { try head() }
            tag = try required(in: "<opml>")
        }
        guard tag.name == "body", !tag.isClose else { throw ParseFailure(offset: tag.offset, "expected <body> in <opml>, found \(tag.display)") }
        builder.beginNode()
        builder.appendText("rows")
        builder.endKey()
        builder.openContainer(.array)
        if !tag.isEmpty { try outlines(closing: tag) }
        builder.closeContainer()
        builder.closeContainer()
        let end = try required(in: "<opml>")
        guard end.isClose, end.name == "opml" else {
            throw ParseFailure(offset: end.offset, "expected </opml> after </body>, found \(end.display)")
        }
        if let extra = try nextTag(in: "the document") {
            throw ParseFailure(offset: extra.offset, "unexpected \(extra.display) after </opml>")
        }
        return builder.build()
    }

    /// The head's elements, each `<name>text</name>`, as members of the root.
    mutating func head() throws(ParseFailure) {
        var seen: [String: Int] = [:]
        while true {
            let tag = try required(in: "<head>")
            if tag.isClose {
                guard tag.name == "head" else { throw ParseFailure(offset: tag.offset, "expected </head>, found \(tag.display)") }
                return
            }
            if let earlier = seen.updateValue(tag.offset, forKey: tag.name.lowercased()) {
                throw ParseFailure(offset: tag.offset, "<\(tag.name)> appears twice in <head> (first at \(location(earlier)))")
            }
            if tag.name.lowercased() == "rows" { throw ParseFailure(offset: tag.offset, "<rows> in <head> would hide the outlines; rename it") }
            builder.beginNode()
            builder.appendText(tag.name)
            builder.endKey()
            if !tag.isEmpty { try text(closing: tag) }
            builder.finishScalar(.string)
        }
    }

    /// The outlines inside `body` up to its end tag; nesting is kept on the heap, not the stack.
    mutating func outlines(closing body: OPMLElement) throws(ParseFailure) {
        var open: [OPMLElement] = [body]
        while let parent = open.last {
            let tag = try required(in: "<\(parent.name)>")
            if tag.isClose {
                guard tag.name == parent.name else {
                    throw ParseFailure(offset: tag.offset, "expected </\(parent.name)> to close the one opened at \(location(parent.offset)), found \(tag.display)")
                }
                open.removeLast()
                if !open.isEmpty {
                    builder.closeContainer()  // the children
                    builder.closeContainer()  // the outline
                }
                continue
            }
            guard tag.name == "outline" else {
                throw ParseFailure(offset: tag.offset, "expected <outline> in <\(parent.name)>, found \(tag.display)")
            }
            guard open.count < XMLPropertyListReader.maxDepth else {
                throw ParseFailure(offset: tag.offset, "outlines nested deeper than \(XMLPropertyListReader.maxDepth) levels")
            }
            builder.beginNode()
            builder.endKey()
            builder.openContainer(.object)
            var text: String?
            for a in tag.attributes {
                if a.name == "text" {
                    text = a.value
                    continue
                }
                builder.beginNode()
                builder.appendText(Self.structural.contains(a.name.lowercased()) ? Self.prefix + a.name : a.name)
                builder.endKey()
                builder.appendText(a.value)
                builder.finishScalar(.string)
            }
            builder.beginNode()
            builder.appendText("title")
            builder.endKey()
            builder.appendText(text ?? "")
            builder.finishScalar(.string)
            if tag.isEmpty {
                builder.closeContainer()
            } else {
                builder.beginNode()
                builder.appendText("children")
                builder.endKey()
                builder.openContainer(.array)
                open.append(tag)
            }
        }
    }

    /// The next tag, which must come before the end of `context`.
    mutating func required(in context: String) throws(ParseFailure) -> OPMLElement {
        guard let tag = try nextTag(in: context) else {
            throw ParseFailure(offset: bytes.count, "unexpected end of input in \(context)")
        }
        return tag
    }

    /// The next start or end tag, skipping white space, comments, processing instructions and a
    /// DOCTYPE; `nil` at the end of input. Other text is an error.
    mutating func nextTag(in context: String) throws(ParseFailure) -> OPMLElement? {
        while true {
            while p < bytes.count, isSpace(bytes[p]) { p += 1 }
            guard p < bytes.count else { return nil }
            guard bytes[p] == 0x3C else {
                throw ParseFailure(offset: p, "unexpected text in \(context); expected a tag, found \(SourceLocation.describe(p, in: bytes))")
            }
            if try skipMarkup() { continue }
            return try tag()
        }
    }

    /// Skips `<!-- -->`, `<? ?>` or `<!DOCTYPE …>`; `false` at a tag.
    mutating func skipMarkup() throws(ParseFailure) -> Bool {
        let start = p
        if starts(with: "<!--") {
            guard let close = find("-->", from: p + 4) else { throw ParseFailure(offset: start, "unterminated comment; expected '-->'") }
            p = close + 3
            return true
        }
        if starts(with: "<?") {
            guard let close = find("?>", from: p + 2) else { throw ParseFailure(offset: start, "unterminated processing instruction; expected '?>'") }
            p = close + 2
            return true
        }
        if starts(with: "<!DOCTYPE") || starts(with: "<!doctype") {
            var depth = 0
            p += 9
            while p < bytes.count {
                let c = bytes[p]
                p += 1
                if c == 0x5B { depth += 1 } else if c == 0x5D { depth -= 1 } else if c == 0x3E && depth <= 0 { return true }
                if c == 0x22 || c == 0x27 {
                    while p < bytes.count && bytes[p] != c { p += 1 }
                    p += 1
                }
            }
            throw ParseFailure(offset: start, "unterminated <!DOCTYPE>; expected '>'")
        }
        return false
    }

    /// A tag at the cursor, with its attributes.
    mutating func tag() throws(ParseFailure) -> OPMLElement {
        let start = p
        p += 1
        let isClose = p < bytes.count && bytes[p] == 0x2F
        if isClose { p += 1 }
        guard let name = self.name() else {
            throw ParseFailure(offset: p, "expected a tag name after '<', found \(SourceLocation.describe(p, in: bytes))")
        }
        var element = OPMLElement(name: name, offset: start, isClose: isClose, isEmpty: false, attributes: [])
        while true {
            let hadSpace = p < bytes.count && isSpace(bytes[p])
            while p < bytes.count, isSpace(bytes[p]) { p += 1 }
            guard p < bytes.count else { throw ParseFailure(offset: start, "unterminated tag <\(name); expected '>'") }
            if bytes[p] == 0x3E {
                p += 1
                return element
            }
            if bytes[p] == 0x2F, !isClose, p + 1 < bytes.count, bytes[p + 1] == 0x3E {
                p += 2
                element.isEmpty = true
                return element
            }
            let at = p
            guard !isClose, hadSpace, let attribute = self.name() else {
                throw ParseFailure(offset: p, "expected an attribute or '>' in <\(isClose ? "/" : "")\(name)>, found \(SourceLocation.describe(p, in: bytes))")
            }
            while p < bytes.count, isSpace(bytes[p]) { p += 1 }
            guard p < bytes.count, bytes[p] == 0x3D else {
                throw ParseFailure(offset: p, "expected '=' after attribute \(attribute), found \(SourceLocation.describe(p, in: bytes))")
            }
            p += 1
            while p < bytes.count, isSpace(bytes[p]) { p += 1 }
            guard p < bytes.count, bytes[p] == 0x22 || bytes[p] == 0x27 else {
                throw ParseFailure(offset: p, "expected a quoted value for attribute \(attribute), found \(SourceLocation.describe(p, in: bytes))")
            }
            let value = try quoted()
            if element.attributes.contains(where: { $0.name == attribute }) {
                throw ParseFailure(offset: at, "attribute \(attribute) appears twice in <\(name)>")
            }
            element.attributes.append((attribute, value, at))
        }
    }

    /// An XML name at the cursor (letters, digits, `_ : - .` and any non-ASCII byte).
    mutating func name() -> String? {
        let start = p
        while p < bytes.count, isNameByte(bytes[p]) { p += 1 }
        guard p > start else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start ..< p]), as: UTF8.self)
    }

    /// A quoted attribute value at the cursor, entities decoded and white space characters
    /// normalized to spaces as XML does.
    mutating func quoted() throws(ParseFailure) -> String {
        let start = p
        let quote = bytes[p]
        p += 1
        var out: [UInt8] = []
        while true {
            guard p < bytes.count else { throw ParseFailure(offset: start, "unterminated attribute value; expected a closing \(quote == 0x22 ? "'\"'" : "\"'\"")") }
            let c = bytes[p]
            if c == quote {
                p += 1
                return String(decoding: out, as: UTF8.self)
            }
            switch c {
            case 0x3C: throw ParseFailure(offset: p, "'<' in an attribute value; write it as &lt;")
            case 0x26: try entity(into: &out)
            case 0x0D:
                out.append(0x20)
                p += p + 1 < bytes.count && bytes[p + 1] == 0x0A ? 2 : 1
            case 0x0A, 0x09:
                out.append(0x20)
                p += 1
            default:
                out.append(c)
                p += 1
            }
        }
    }

    /// The character data of `element` up to its end tag, appended to the builder's text.
    mutating func text(closing element: OPMLElement) throws(ParseFailure) {
        var out: [UInt8] = []
        while true {
            guard p < bytes.count else { throw ParseFailure(offset: element.offset, "unclosed <\(element.name)> opened here; found end of input") }
            let c = bytes[p]
            if c == 0x26 {
                try entity(into: &out)
            } else if c == 0x0D {
                out.append(0x0A)
                p += p + 1 < bytes.count && bytes[p + 1] == 0x0A ? 2 : 1
            } else if c != 0x3C {
                out.append(c)
                p += 1
            } else if starts(with: "<![CDATA[") {
                guard let close = find("]]>", from: p + 9) else { throw ParseFailure(offset: p, "unterminated CDATA section; expected ']]>'") }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[p + 9 ..< close]))
                p = close + 3
            } else if starts(with: "<!--") {
                guard let close = find("-->", from: p + 4) else { throw ParseFailure(offset: p, "unterminated comment; expected '-->'") }
                p = close + 3
            } else {
                let end = try tag()
                guard end.isClose, end.name == element.name else {
                    throw ParseFailure(offset: end.offset, "expected </\(element.name)> to close the one opened at \(location(element.offset)), found \(end.display); head elements hold text")
                }
                builder.text.append(contentsOf: out)
                return
            }
        }
    }

    /// Decodes `&name;` or `&#…;` at the cursor.
    mutating func entity(into out: inout [UInt8]) throws(ParseFailure) {
        let start = p
        var q = p + 1
        while q < bytes.count, bytes[q] != 0x3B, q - p < 12 { q += 1 }
        guard q < bytes.count, bytes[q] == 0x3B else {
            throw ParseFailure(offset: start, "'&' must start an entity such as &amp; (write a literal '&' as &amp;)")
        }
        let name = String(decoding: UnsafeBufferPointer(rebasing: bytes[p + 1 ..< q]), as: UTF8.self)
        p = q + 1
        switch name {
        case "lt": out.append(0x3C)
        case "gt": out.append(0x3E)
        case "amp": out.append(0x26)
        case "quot": out.append(0x22)
        case "apos": out.append(0x27)
        default:
            let isHex = name.hasPrefix("#x") || name.hasPrefix("#X")
            guard name.hasPrefix("#"), let value = UInt32(name.dropFirst(isHex ? 2 : 1), radix: isHex ? 16 : 10), value <= 0x10FFFF,
                  !(0xD800 ... 0xDFFF).contains(value)
            else {
                throw ParseFailure(offset: start, "unknown entity &\(name); expected &lt; &gt; &amp; &quot; &apos; or &#N;")
            }
            UTF8Validation.append(value, to: &out)
        }
    }

    // MARK: Bytes

    func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

    func isNameByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x3A || c == 0x2D || c == 0x2E || c >= 0x80
    }

    func starts(with literal: String) -> Bool {
        let lit = Array(literal.utf8)
        guard bytes.count - p >= lit.count else { return false }
        for i in 0 ..< lit.count where bytes[p + i] != lit[i] { return false }
        return true
    }

    func find(_ literal: String, from start: Int) -> Int? {
        let lit = Array(literal.utf8)
        var q = start
        while bytes.count - q >= lit.count {
            if bytes[q] == lit[0], (1 ..< lit.count).allSatisfy({ bytes[q + $0] == lit[$0] }) { return q }
            q += 1
        }
        return nil
    }

    func location(_ offset: Int) -> String { SourceLocation.text(of: offset, in: bytes) }
}
