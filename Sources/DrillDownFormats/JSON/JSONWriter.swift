import DrillDownCore

/// Writes a ``TreeStore`` as pretty JSON: two-space indent, keys in document order, numbers as stored.
///
/// Dates and data become strings (JSON has no such types); a real that has no JSON spelling
/// (`inf`, `nan`) is an error rather than a silently invalid file.
///
/// - Complexity: O(n) in the size of the tree; no recursion.
enum JSONWriter {
    /// The document's bytes.
    static func data(_ tree: TreeStore) throws(WriteFailure) -> [UInt8] {
        var out = WriterOutput(.collect)
        try write(tree, to: &out)
        return out.bytes
    }

    /// The document on one line, without spaces (`{"a":1,"b":[true]}`): how JSON held in a text
    /// value is written back after an edit inside it.
    static func compactText(_ tree: TreeStore) throws(WriteFailure) -> String {
        var out = WriterOutput(.collect)
        try write(tree, to: &out, compact: true)
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// Writes the document to `out`, passing it on a chunk at a time (see ``WriterOutput``);
    /// `compact` leaves out line breaks, indents and the space after colons.
    static func write(_ tree: TreeStore, to out: inout WriterOutput, compact: Bool = false) throws(WriteFailure) {
        out.reserve(tree.count * (compact ? 12 : 24))
        for event in TreeWalk(tree) {
            try out.checkpoint()
            switch event {
            case .scalar(let id, let depth), .open(let id, let depth):
                if depth > 0 {
                    if tree.position(of: id) > 0 { out.append(0x2C) }
                    if !compact {
                        out.append(0x0A)
                        out.append(repeating: 0x20, count: depth * 2)
                    }
                    if let parent = tree.parent(of: id), tree.kind(of: parent) == .object {
                        writeString(tree.keyBytes(of: id), to: &out)
                        out.append(ascii: compact ? ":" : ": ")
                    }
                }
                try writeValue(id, of: tree, to: &out)
            case .close(let id, let depth):
                guard tree.childCount(of: id) > 0 else { continue }
                if !compact {
                    out.append(0x0A)
                    out.append(repeating: 0x20, count: depth * 2)
                }
                out.append(tree.kind(of: id) == .object ? 0x7D : 0x5D)
            }
        }
        if !compact { out.append(0x0A) }
    }

    private static func writeValue(_ id: NodeID, of tree: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        let kind = tree.kind(of: id)
        let value = tree.valueBytes(of: id)
        switch kind {
        case .object: out.append(ascii: tree.childCount(of: id) == 0 ? "{}" : "{")
        case .array: out.append(ascii: tree.childCount(of: id) == 0 ? "[]" : "[")
        case .string, .date, .data: writeString(value, to: &out)
        case .integer, .real:
            if ScalarText.isJSONNumber(value) {
                out.append(contentsOf: value)
                if kind == .real && ScalarText.needsFraction(value) { out.append(ascii: ".0") }
            } else if kind == .integer, value.first == 0x2B, ScalarText.isJSONNumber(value.dropFirst()) {
                out.append(contentsOf: value.dropFirst())
            } else {
                let text = String(decoding: value, as: UTF8.self)
                throw WriteFailure("JSON has no number \(text) (at \(tree.describePath(id)))")
            }
        case .bool: out.append(ascii: ScalarText.isTrue(value) ? "true" : "false")
        case .null: out.append(ascii: "null")
        }
    }

    /// ``writeString(_:to:)`` through a pointer, not ``TextBytes``' subscript.
    static func writeString(_ bytes: TextBytes, to out: inout some ByteSink) { bytes.withUnsafeBufferPointer { writeString($0, to: &out) } }

    /// Appends `bytes` as a quoted JSON string, escaping quotes, backslashes and control characters.
    static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout some ByteSink) {
        out.append(0x22)
        var runStart = bytes.startIndex
        for i in bytes.indices {
            let c = bytes[i]
            guard c == 0x22 || c == 0x5C || c < 0x20 else { continue }
            out.append(contentsOf: bytes[runStart ..< i])
            runStart = i + 1
            out.append(0x5C)
            switch c {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x0A: out.append(0x6E)
            case 0x0D: out.append(0x72)
            case 0x09: out.append(0x74)
            case 0x08: out.append(0x62)
            case 0x0C: out.append(0x66)
            default:
                out.append(ascii: "u00")
                out.append(hexDigit(c >> 4))
                out.append(hexDigit(c & 0xF))
            }
        }
        out.append(contentsOf: bytes[runStart...])
        out.append(0x22)
    }

    @inline(__always)
    static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x37 + v }
}
