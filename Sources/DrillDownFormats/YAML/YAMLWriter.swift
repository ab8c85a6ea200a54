import DrillDownCore

/// Writes a ``TreeStore`` as block-style YAML that reads back to the same kinds.
///
/// Mappings are `key: value` lines, sequences `- item` lines (a nested container starts on the
/// dash's line), two-space indent, keys in document order. A string is written plain only when
/// it cannot be mistaken for anything else (it starts with a letter, holds only letters, digits,
/// spaces and `_-./()`, and is not a YAML 1.1 keyword such as `yes`, `off` or `null`); otherwise it
/// is double-quoted with escapes, so `"true"`, `"42"` and `"2001-01-01"` stay strings. Dates are
/// written as plain timestamps, data as `!!binary`, and reals as YAML 1.1 floats (`1.0e+5`, never
/// `1e5`). Characters YAML cannot hold literally (C0 and C1 controls, DEL, U+2028, U+2029, U+FEFF,
/// U+FFFE, U+FFFF) are escaped, so the output reads back equal here and in libyaml and PyYAML.
///
/// - Complexity: O(n) in the size of the tree; no recursion.
enum YAMLWriter {
    /// The document's bytes.
    static func data(_ tree: TreeStore) throws(WriteFailure) -> [UInt8] {
        var out = WriterOutput(.collect)
        try write(tree, to: &out)
        return out.bytes
    }

    /// Writes the document to `out`, passing it on a chunk at a time (see ``WriterOutput``).
    static func write(_ tree: TreeStore, to out: inout WriterOutput) throws(WriteFailure) {
        out.reserve(tree.count * 24)
        var inline = false
        for event in TreeWalk(tree) {
            try out.checkpoint()
            let id: NodeID
            let depth: Int
            switch event {
            case .close: continue
            case .scalar(let node, let d), .open(let node, let d):
                id = node
                depth = d
            }
            let kind = tree.kind(of: id)
            let isOpenContainer = kind.isContainer && tree.childCount(of: id) > 0
            guard let parent = tree.parent(of: id) else {
                if !isOpenContainer {
                    writeScalar(id, of: tree, to: &out)
                    out.append(0x0A)
                }
                continue
            }
            if !inline { out.append(repeating: 0x20, count: (depth - 1) * 2) }
            inline = false
            if tree.kind(of: parent) == .object {
                var key: [UInt8] = []
                writeString(tree.keyBytes(of: id), to: &key)
                if key.count > 1000 {
                    out.append(ascii: "? ")
                    out.append(contentsOf: key)
                    out.append(0x0A)
                    out.append(repeating: 0x20, count: (depth - 1) * 2)
                } else {
                    out.append(contentsOf: key)
                }
                out.append(0x3A)
                if isOpenContainer {
                    out.append(0x0A)
                    continue
                }
            } else {
                out.append(0x2D)
                if isOpenContainer {
                    out.append(0x20)
                    inline = true
                    continue
                }
            }
            out.append(0x20)
            writeScalar(id, of: tree, to: &out)
            out.append(0x0A)
        }
    }

    /// Appends a scalar (or an empty container as `{}` / `[]`).
    private static func writeScalar(_ id: NodeID, of tree: TreeStore, to out: inout WriterOutput) {
        let value = tree.valueBytes(of: id)
        switch tree.kind(of: id) {
        case .object: out.append(ascii: "{}")
        case .array: out.append(ascii: "[]")
        case .string: writeString(value, to: &out)
        case .integer:
            if ScalarText.isDecimalInteger(value) { out.append(contentsOf: value) } else { writeString(value, to: &out) }
        case .real:
            switch String(decoding: value, as: UTF8.self) {
            case "inf": out.append(ascii: ".inf")
            case "-inf": out.append(ascii: "-.inf")
            case "nan": out.append(ascii: ".nan")
            default: writeReal(value, to: &out)
            }
        case .bool: out.append(ascii: ScalarText.isTrue(value) ? "true" : "false")
        case .null: out.append(ascii: "null")
        case .date:
            if let text = PropertyListDate.normalize(value) { out.append(contentsOf: text.utf8) } else { writeString(value, to: &out) }
        case .data:
            out.append(ascii: "!!binary ")
            out.append(contentsOf: value)
        }
    }

    /// Appends a real as YAML 1.1 (and so PyYAML) reads a float: a mantissa with a `.` and a
    /// signed exponent (`1e5` is a string there; `1.0e+5` a float).
    static func writeReal(_ value: some ByteText, to out: inout some ByteSink) {
        let e = value.firstIndex { $0 == 0x65 || $0 == 0x45 } ?? value.endIndex
        let mantissa = value[..<e]
        out.append(contentsOf: mantissa)
        if !mantissa.contains(0x2E) { out.append(ascii: ".0") }
        guard e < value.endIndex else { return }
        out.append(0x65)
        var exponent = value[(e + 1)...]
        if let sign = exponent.first, sign == 0x2B || sign == 0x2D {
            out.append(sign)
            exponent = exponent.dropFirst()
        } else {
            out.append(0x2B)
        }
        out.append(contentsOf: exponent)
    }

    static let keywords: Set<String> = ["yes", "no", "true", "false", "on", "off", "null", "y", "n"]

    /// ``isPlainSafe(_:)`` through a pointer, not ``TextBytes``' subscript.
    static func isPlainSafe(_ bytes: TextBytes) -> Bool { bytes.withUnsafeBufferPointer { isPlainSafe($0) } }

    /// Whether `bytes` can be written as a plain scalar and read back as the same string.
    static func isPlainSafe(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, let last = bytes.last else { return false }
        let isLetter = (first | 0x20) >= 0x61 && (first | 0x20) <= 0x7A
        guard isLetter, last != 0x20 else { return false }
        var previous: UInt8 = 0
        for c in bytes {
            switch c {
            case 0x61 ... 0x7A, 0x41 ... 0x5A, 0x30 ... 0x39, 0x20, 0x5F, 0x2D, 0x2E, 0x2F, 0x28, 0x29: break
            case 0x80 ... 0x9F where previous == 0xC2: return false
            case 0xA8 ... 0xA9 where previous == 0x80: return false
            case 0xBB where previous == 0xEF: return false
            case 0xBF where previous == 0xEF: return false
            case 0x80 ... 0xFF: break
            default: return false
            }
            previous = c
        }
        if bytes.count <= 5 && keywords.contains(String(decoding: bytes, as: UTF8.self).lowercased()) { return false }
        return true
    }

    /// ``writeString(_:to:)`` through a pointer, not ``TextBytes``' subscript.
    static func writeString(_ bytes: TextBytes, to out: inout some ByteSink) { bytes.withUnsafeBufferPointer { writeString($0, to: &out) } }

    /// Appends `bytes` plain when that is safe, else as a double-quoted scalar with escapes.
    static func writeString(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout some ByteSink) {
        if isPlainSafe(bytes) {
            out.append(contentsOf: bytes)
            return
        }
        out.append(0x22)
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            switch scalar.value {
            case 0x22: out.append(ascii: "\\\"")
            case 0x5C: out.append(ascii: "\\\\")
            case 0x0A: out.append(ascii: "\\n")
            case 0x09: out.append(ascii: "\\t")
            case 0x0D: out.append(ascii: "\\r")
            case 0 ..< 0x20, 0x7F:
                out.append(ascii: "\\x")
                out.append(JSONWriter.hexDigit(UInt8(scalar.value >> 4)))
                out.append(JSONWriter.hexDigit(UInt8(scalar.value & 0xF)))
            case 0x80 ... 0x9F, 0x2028, 0x2029, 0xFEFF, 0xFFFE, 0xFFFF:
                out.append(ascii: "\\u")
                for shift in stride(from: 12, through: 0, by: -4) {
                    out.append(JSONWriter.hexDigit(UInt8((scalar.value >> UInt32(shift)) & 0xF)))
                }
            default:
                UTF8Validation.append(scalar.value, to: &out)
            }
        }
        out.append(0x22)
    }
}
