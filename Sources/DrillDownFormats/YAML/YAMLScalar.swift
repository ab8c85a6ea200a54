import DrillDownCore

/// The kind and stored text of one YAML scalar event: its explicit tag decides, or for an
/// untagged plain scalar the type its text resolves to (``YAMLPlainScalar``); quoted and block
/// scalars are strings. Shared by ``YAMLBlockReader``, ``YAMLStreamReader`` and ``YAMLComposer``.
///
/// ```swift
/// let s = try YAMLScalar(text, tag: nil, isPlain: true)   // "0x1F" → .integer, "31"
/// ```
struct YAMLScalar {
    /// A scalar whose text does not fit its tag (an `!!int` that is no integer, bad base64…).
    struct Invalid: Error {
        let message: String
    }

    enum Resolved { case null, bool, int, float, timestamp, binary, string }

    var kind: ValueKind = .string
    /// The text the tree stores, when it differs from the text as written.
    var converted: String?
    /// A plain, untagged `<<` (a merge key where it is used as a key).
    var isMergeKey = false

    /// Types `text` (the scalar's value) by its resolved `tag` (``YAMLParser/Event/tag``) and whether it is written plain.
    /// - Complexity: O(n) in the text's length (O(n²) for non-decimal integers, whose digits are capped).
    init(_ text: UnsafeBufferPointer<UInt8>, tag: String?, isPlain: Bool) throws(Invalid) {
        // Most scalars are quoted, plainly untyped by their bytes, or decimal integers already in
        // canonical form: no String is made for them.
        if tag == nil, !text.isEmpty, !(isPlain && YAMLPlainScalar.mayBeTyped(text)) { return }
        if tag == nil, isPlain, Self.isCanonicalDecimal(text) {
            kind = .integer
            return
        }
        let string = String(decoding: text, as: UTF8.self)
        isMergeKey = isPlain && tag == nil && string == "<<"
        switch Self.resolve(string, tag: tag, isPlain: isPlain) {
        case .int:
            kind = .integer
            guard let integer = YAMLNumbers.integer(string) else {
                throw Invalid(message: "invalid integer '\(string.prefix(80))' (or one of more than \(YAMLNumbers.maxDigits) digits in base 2, 8, 16 or 60)")
            }
            converted = integer
        case .float:
            guard let real = YAMLNumbers.real(string) else { throw Invalid(message: "invalid float '\(string)'") }
            kind = .real
            converted = real
        case .bool:
            kind = .bool
            converted = ["true", "yes", "on", "y"].contains(string.lowercased()) ? "true" : "false"
        case .null:
            kind = .null
            converted = ""
        case .timestamp:
            if text.count > 10, let date = PropertyListDate.normalize(text) {
                kind = .date
                converted = date
            }
        case .binary:
            guard let data = Base64.normalize(text) else { throw Invalid(message: "invalid base64 in !!binary value") }
            kind = .data
            converted = String(decoding: data, as: UTF8.self)
        case .string:
            break
        }
    }

    /// `0` or `[1-9][0-9]*`: a YAML int whose stored text is the text as written.
    static func isCanonicalDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = text.first, first >= 0x31 && first <= 0x39 || text.count == 1 else { return false }
        return text.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The type of a scalar: its explicit tag, or for an untagged plain scalar the one its text
    /// resolves to (quoted and block scalars are strings).
    static func resolve(_ text: String, tag: String?, isPlain: Bool) -> Resolved {
        if let tag, tag != "!" {
            switch tag {
            case "tag:yaml.org,2002:int": return .int
            case "tag:yaml.org,2002:float": return .float
            case "tag:yaml.org,2002:bool": return .bool
            case "tag:yaml.org,2002:null": return .null
            case "tag:yaml.org,2002:timestamp": return .timestamp
            case "tag:yaml.org,2002:binary": return .binary
            default: return .string
            }
        }
        guard tag == nil, isPlain else { return .string }
        switch YAMLPlainScalar.resolve(text) {
        case .null: return .null
        case .bool: return .bool
        case .int: return .int
        case .float: return .float
        case .timestamp: return .timestamp
        case .merge, .string: return .string
        }
    }
}
