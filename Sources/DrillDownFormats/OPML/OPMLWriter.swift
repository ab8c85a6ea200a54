import DrillDownCore

/// Writes a subtree of any ``Source`` as OPML 2.0: the node's level title is the head's
/// `<title>`, each row an `<outline>` whose `text` is its title and whose other attributes are
/// its attributes (`opml:title` written back as `title`, see ``OPMLParser``), its children nested
/// outlines. A leaf's value, when it differs from its title, is written as a `value` attribute.
/// At the root of an outline document, the root's other scalar members are head elements
/// (`dateCreated`, `ownerName`, …), as ``OPMLParser`` reads them.
///
/// An attribute key that is no XML name (`a b`, `1st`) or a character XML 1.0 cannot hold is an
/// error naming the node; nothing is written then.
///
/// ```swift
/// let bytes = try OPMLWriter.data(source, node: album)   // a subtree, for a download
/// ```
/// - Complexity: O(n) in the subtree's size; no recursion.
public enum OPMLWriter {
    /// The OPML of the subtree at `node` (the whole source by default). With `including`, only
    /// the rows it keeps are written, and none below a row it leaves out (a reader's download
    /// without the rows hidden from them).
    /// - Throws: a ``FormatError`` naming the node that cannot be written.
    public static func data(_ source: any Source, node: NodeID? = nil, including: ((NodeID) -> Bool)? = nil) throws(FormatError) -> [UInt8] {
        var out = WriterOutput(.collect)
        do throws(WriteFailure) {
            try write(source, node: node ?? source.root, including: including, to: &out)
        } catch {
            throw FormatError(file: "(opml output)", message: error.message)
        }
        return out.bytes
    }

    static func write(_ tree: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        let source = DocumentSource(tree: tree)
        try write(source, node: source.root, to: &out)
    }

    static func write(_ source: any Source, node: NodeID, including: ((NodeID) -> Bool)? = nil, to out: inout WriterOutput) throws(WriteFailure) {
        out.append(ascii: "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<opml version=\"2.0\">\n  <head>\n    <title>")
        try escape(source.levelTitle(of: node), to: &out, at: node, of: source)
        out.append(ascii: "</title>\n")
        if node == source.root, !(source.documentSource?.mode == .generic) {
            for a in source.attributes(of: node) where a.value.kind != .null && a.key.lowercased() != "title" {
                guard isName(a.key) else { throw notAName(a.key, at: node, of: source) }
                out.append(ascii: "    <")
                out.append(contentsOf: a.key.utf8)
                out.append(ascii: ">")
                try escape(a.value.text, to: &out, at: node, of: source)
                out.append(ascii: "</")
                out.append(contentsOf: a.key.utf8)
                out.append(ascii: ">\n")
            }
        }
        out.append(ascii: "  </head>\n  <body>\n")
        var stack: [(range: NodeRange, next: Int)] = [(source.children(of: node), 0)]
        while let top = stack.last {
            try out.checkpoint()
            guard top.next < top.range.count else {
                stack.removeLast()
                if !stack.isEmpty {
                    out.append(repeating: 0x20, count: 2 * (stack.count + 1))
                    out.append(ascii: "</outline>\n")
                }
                continue
            }
            let id = top.range[top.next]
            stack[stack.count - 1].next += 1
            if let including, !including(id) { continue }
            out.append(repeating: 0x20, count: 2 * (stack.count + 1))
            out.append(ascii: "<outline text=\"")
            let title = source.title(of: id)
            try escape(title, to: &out, at: id, of: source)
            out.append(0x22)
            let attributes = source.attributes(of: id)
            for a in attributes where a.value.kind != .null {
                var key = a.key
                if key.hasPrefix(OPMLParser.prefix), OPMLParser.structural.contains(String(key.dropFirst(OPMLParser.prefix.count)).lowercased()) {
                    key.removeFirst(OPMLParser.prefix.count)
                }
                guard isName(key), key != "text" else { throw notAName(a.key, at: id, of: source) }
                try attribute(key, a.value.text, to: &out, at: id, of: source)
            }
            if attributes.isEmpty, let value = source.value(of: id), value.kind != .null, value.text != title {
                try attribute("value", value.text, to: &out, at: id, of: source)
            }
            let children = source.children(of: id)
            if children.isEmpty {
                out.append(ascii: "/>\n")
            } else {
                out.append(ascii: ">\n")
                guard stack.count < XMLPropertyListReader.maxDepth else {
                    throw WriteFailure("the outline at \(source.titlePath(of: id)) is nested deeper than \(XMLPropertyListReader.maxDepth) levels")
                }
                stack.append((children, 0))
            }
        }
        out.append(ascii: "  </body>\n</opml>\n")
        try out.checkpoint()
    }

    static func attribute(_ key: String, _ value: String, to out: inout WriterOutput, at id: NodeID, of source: any Source) throws(WriteFailure) {
        out.append(0x20)
        out.append(contentsOf: key.utf8)
        out.append(ascii: "=\"")
        try escape(value, to: &out, at: id, of: source)
        out.append(0x22)
    }

    /// Appends text as XML character data fit for an attribute value too: `< > & "` and line
    /// breaks and tabs as references (so they survive attribute-value normalization).
    static func escape(_ text: String, to out: inout WriterOutput, at id: NodeID, of source: any Source) throws(WriteFailure) {
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x3C: out.append(ascii: "&lt;")
            case 0x3E: out.append(ascii: "&gt;")
            case 0x26: out.append(ascii: "&amp;")
            case 0x22: out.append(ascii: "&quot;")
            case 0x0A: out.append(ascii: "&#10;")
            case 0x0D: out.append(ascii: "&#13;")
            case 0x09: out.append(ascii: "&#9;")
            case 0 ..< 0x20, 0xFFFE, 0xFFFF:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                throw WriteFailure(
                    "OPML cannot hold U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex) (XML 1.0 has no such character); "
                        + "the row at \(describe(id, of: source)) holds it")
            default: out.append(contentsOf: String(Character(scalar)).utf8)
            }
        }
    }

    /// Whether `key` is an XML name: a letter, `_` or `:` (or any non-ASCII character) first, then
    /// also digits, `-` and `.`.
    static func isName(_ key: String) -> Bool {
        guard let first = key.unicodeScalars.first else { return false }
        func letter(_ s: Unicode.Scalar) -> Bool {
            (s >= "a" && s <= "z") || (s >= "A" && s <= "Z") || s == "_" || s == ":" || s.value >= 0x80
        }
        return letter(first) && key.unicodeScalars.dropFirst().allSatisfy { letter($0) || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "." }
    }

    static func notAName(_ key: String, at id: NodeID, of source: any Source) -> WriteFailure {
        WriteFailure("the attribute '\(key)' of the row at \(describe(id, of: source)) is not an XML name, so OPML cannot hold it as an attribute")
    }

    static func describe(_ id: NodeID, of source: any Source) -> String {
        id == source.root ? "the root" : "\(source.path(of: id)) (\(source.titlePath(of: id)))"
    }
}

extension OPMLWriter {
    /// Writes the subtree at `node` to `path` atomically (see ``data(_:node:)``).
    public static func write(_ source: any Source, node: NodeID, to path: String) throws(FormatError) {
        try AtomicFile.write(to: path) { fd throws(FormatError) in
            var out = WriterOutput(.file(fd, keep: 0, limit: .max))
            do throws(WriteFailure) {
                try write(source, node: node, to: &out)
                try out.finish()
            } catch {
                throw FormatError(file: path, message: error.message)
            }
        }
    }
}
