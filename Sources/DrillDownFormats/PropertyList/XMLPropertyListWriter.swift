import DrillDownCore

/// Writes a ``TreeStore`` as an XML property list the way Apple's tools do: the standard header
/// and DOCTYPE, one element per line, tabs for indentation.
///
/// Null has no property-list representation, so a null node is an error naming its path.
/// A carriage return is written as the character reference `&#13;` (a literal one would be read
/// as a newline); characters XML 1.0 cannot hold at all, even as references (control characters
/// other than tab, newline and carriage return; U+FFFE, U+FFFF), are an error naming the node.
///
/// - Complexity: O(n) in the size of the tree; no recursion.
enum XMLPropertyListWriter {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    /// The document's bytes.
    static func data(_ tree: TreeStore) throws(WriteFailure) -> [UInt8] {
        var out = WriterOutput(.collect)
        try write(tree, to: &out)
        return out.bytes
    }

    /// Writes the document to `out`, passing it on a chunk at a time (see ``WriterOutput``).
    static func write(_ tree: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        out.reserve(header.utf8.count + tree.count * 40)
        out.append(contentsOf: header.utf8)
        for event in TreeWalk(tree) {
            try out.checkpoint()
            switch event {
            case .scalar(let id, let depth), .open(let id, let depth):
                if let parent = tree.parent(of: id), tree.kind(of: parent) == .object {
                    out.append(repeating: 0x09, count: depth)
                    out.append(ascii: "<key>")
                    try escape(tree.keyBytes(of: id), to: &out, at: id, of: tree, what: "key")
                    out.append(ascii: "</key>\n")
                }
                out.append(repeating: 0x09, count: depth)
                try element(id, of: tree, to: &out)
                out.append(0x0A)
            case .close(let id, let depth):
                guard tree.childCount(of: id) > 0 else { continue }
                out.append(repeating: 0x09, count: depth)
                out.append(ascii: tree.kind(of: id) == .object ? "</dict>\n" : "</array>\n")
            }
        }
        out.append(ascii: "</plist>\n")
    }

    private static func element(_ id: NodeID, of tree: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        let value = tree.valueBytes(of: id)
        switch tree.kind(of: id) {
        case .object: out.append(ascii: tree.childCount(of: id) == 0 ? "<dict/>" : "<dict>")
        case .array: out.append(ascii: tree.childCount(of: id) == 0 ? "<array/>" : "<array>")
        case .string:
            out.append(ascii: "<string>")
            try escape(value, to: &out, at: id, of: tree, what: "string")
            out.append(ascii: "</string>")
        case .integer:
            guard let text = PropertyListNumbers.integer(String(decoding: value, as: UTF8.self)) else {
                throw WriteFailure("'\(String(decoding: value, as: UTF8.self))' is not an integer (at \(tree.describePath(id)))")
            }
            out.append(ascii: "<integer>")
            out.append(contentsOf: text.utf8)
            out.append(ascii: "</integer>")
        case .real:
            out.append(ascii: "<real>")
            out.append(contentsOf: realText(value).utf8)
            out.append(ascii: "</real>")
        case .bool: out.append(ascii: ScalarText.isTrue(value) ? "<true/>" : "<false/>")
        case .date:
            guard let text = PropertyListDate.normalize(value) else {
                throw WriteFailure("'\(String(decoding: value, as: UTF8.self))' is not an ISO 8601 date (at \(tree.describePath(id)))")
            }
            out.append(ascii: "<date>")
            out.append(contentsOf: text.utf8)
            out.append(ascii: "</date>")
        case .data:
            out.append(ascii: "<data>")
            out.append(contentsOf: value)
            out.append(ascii: "</data>")
        case .null:
            throw WriteFailure("property lists have no null; the value at \(tree.describePath(id)) is null")
        }
    }

    /// A real's text as property lists spell it (`+infinity`, `-infinity`, `nan`).
    static func realText(_ value: some ByteText) -> String {
        let text = String(decoding: value, as: UTF8.self)
        switch text {
        case "inf": return "+infinity"
        case "-inf": return "-infinity"
        default: return ScalarText.needsFraction(value) ? text + ".0" : text
        }
    }

    /// ``escape(_:to:at:of:what:)`` through a pointer, not ``TextBytes``' subscript.
    static func escape(_ bytes: TextBytes, to out: inout some ByteSink, at id: NodeID, of tree: TreeStore, what: String) throws(WriteFailure) {
        let failure: WriteFailure? = bytes.withUnsafeBufferPointer { buffer in
            do throws(WriteFailure) {
                try escape(buffer, to: &out, at: id, of: tree, what: what)
                return nil
            } catch { return error }
        }
        if let failure { throw failure }
    }

    /// Appends `bytes` as XML character data; a character XML 1.0 cannot hold is an error naming
    /// the node (`what` is "key" or "string").
    static func escape(
        _ bytes: UnsafeBufferPointer<UInt8>, to out: inout some ByteSink, at id: NodeID, of tree: TreeStore, what: String
    ) throws(WriteFailure) {
        var runStart = bytes.startIndex
        for i in bytes.indices {
            let c = bytes[i]
            guard c == 0x3C || c == 0x3E || c == 0x26 || c == 0x0D || c == 0xEF || (c < 0x20 && c != 0x0A && c != 0x09) else { continue }
            if c == 0xEF {
                // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not XML characters.
                guard i + 2 < bytes.endIndex, bytes[i + 1] == 0xBF, bytes[i + 2] >= 0xBE else { continue }
                throw unwritable(0xFFFE + UInt32(bytes[i + 2] - 0xBE), at: id, of: tree, what: what)
            }
            if c < 0x20 && c != 0x0D { throw unwritable(UInt32(c), at: id, of: tree, what: what) }
            out.append(contentsOf: bytes[runStart ..< i])
            runStart = i + 1
            switch c {
            case 0x3C: out.append(ascii: "&lt;")
            case 0x3E: out.append(ascii: "&gt;")
            case 0x26: out.append(ascii: "&amp;")
            default: out.append(ascii: "&#13;")
            }
        }
        out.append(contentsOf: bytes[runStart...])
    }

    static func unwritable(_ scalar: UInt32, at id: NodeID, of tree: TreeStore, what: String) -> WriteFailure {
        let hex = String(scalar, radix: 16, uppercase: true)
        return WriteFailure(
            "XML property lists cannot hold U+\(String(repeating: "0", count: max(0, 4 - hex.count)) + hex) (XML 1.0 has no such "
                + "character, not even as a reference); the \(what) at \(tree.describePath(id)) holds it")
    }
}
