import DrillDownCore

/// Writes a ``TreeStore`` as an OpenStep property list: `{ key = value; }`, `( a, b )`,
/// four-space indent.
///
/// The format has only strings, data, arrays and dictionaries: numbers, booleans and dates are
/// written as their text (and read back as strings); strings are quoted unless they consist only
/// of `A-Za-z0-9_$+:.-`. Null is an error.
///
/// - Complexity: O(n) in the size of the tree; no recursion.
enum OpenStepWriter {
    /// The document's bytes.
    static func data(_ tree: TreeStore) throws(WriteFailure) -> [UInt8] {
        var out = WriterOutput(.collect)
        try write(tree, to: &out)
        return out.bytes
    }

    /// Writes the document to `out`, passing it on a chunk at a time (see ``WriterOutput``).
    static func write(_ tree: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        out.reserve(tree.count * 32)
        for event in TreeWalk(tree) {
            try out.checkpoint()
            switch event {
            case .scalar(let id, let depth), .open(let id, let depth):
                let parentKind = tree.parent(of: id).map { tree.kind(of: $0) }
                if depth > 0 {
                    if parentKind == .array && tree.position(of: id) > 0 { out.append(ascii: ",\n") } else { out.append(0x0A) }
                    out.append(repeating: 0x20, count: depth * 4)
                }
                if parentKind == .object {
                    writeString(tree.keyBytes(of: id), to: &out)
                    out.append(ascii: " = ")
                }
                try writeValue(id, of: tree, to: &out)
                if parentKind == .object && !tree.kind(of: id).isContainer { out.append(0x3B) }
            case .close(let id, let depth):
                let isDict = tree.kind(of: id) == .object
                if tree.childCount(of: id) > 0 {
                    out.append(0x0A)
                    out.append(repeating: 0x20, count: depth * 4)
                    out.append(isDict ? 0x7D : 0x29)
                }
                if let parent = tree.parent(of: id), tree.kind(of: parent) == .object { out.append(0x3B) }
            }
        }
        out.append(0x0A)
    }

    private static func writeValue(_ id: NodeID, of tree: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        let value = tree.valueBytes(of: id)
        switch tree.kind(of: id) {
        case .object: out.append(ascii: tree.childCount(of: id) == 0 ? "{}" : "{")
        case .array: out.append(ascii: tree.childCount(of: id) == 0 ? "()" : "(")
        case .data:
            guard let bytes = Base64.decode(value) else { throw WriteFailure("data at \(tree.describePath(id)) is not valid base64") }
            out.append(0x3C)
            for (i, b) in bytes.enumerated() {
                if i > 0 && i % 4 == 0 { out.append(0x20) }
                out.append(JSONWriter.hexDigit(b >> 4) | 0x20)
                out.append(JSONWriter.hexDigit(b & 0xF) | 0x20)
            }
            out.append(0x3E)
        case .bool: out.append(contentsOf: ScalarText.isTrue(value) ? "true".utf8 : "false".utf8)
        case .null: throw WriteFailure("property lists have no null; the value at \(tree.describePath(id)) is null")
        case .string, .integer, .real, .date: writeString(value, to: &out)
        }
    }

    /// ``writeString(_:to:)`` through a pointer, not ``TextBytes``' subscript.
    static func writeString(_ bytes: TextBytes, to out: inout some ByteSink) { bytes.withUnsafeBufferPointer { writeString($0, to: &out) } }

    /// Appends `bytes` unquoted when every byte may appear in an unquoted string, else quoted.
    static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout some ByteSink) {
        if !bytes.isEmpty && bytes.allSatisfy({ isWordByte($0) && $0 != 0x2F }) {
            out.append(contentsOf: bytes)
            return
        }
        out.append(0x22)
        for c in bytes {
            switch c {
            case 0x22: out.append(ascii: "\\\"")
            case 0x5C: out.append(ascii: "\\\\")
            case 0x0A: out.append(ascii: "\\n")
            case 0x09: out.append(ascii: "\\t")
            case 0x0D: out.append(ascii: "\\r")
            case 0 ..< 0x20:
                out.append(0x5C)
                out.append(0x30 + (c >> 6))
                out.append(0x30 + ((c >> 3) & 7))
                out.append(0x30 + (c & 7))
            default: out.append(c)
            }
        }
        out.append(0x22)
    }

    static func isWordByte(_ c: UInt8) -> Bool {
        switch c {
        case 0x61 ... 0x7A, 0x41 ... 0x5A, 0x30 ... 0x39, 0x5F, 0x24, 0x2B, 0x2F, 0x3A, 0x2E, 0x2D: true
        default: false
        }
    }
}
