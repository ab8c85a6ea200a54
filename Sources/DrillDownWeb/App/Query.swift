/// A parsed URL query string: `+` is a space, `%XX` escapes are decoded, the first value of a key wins.
struct Query: Sendable {
    /// Every key with its first value.
    private(set) var values: [String: String] = [:]
    /// Every value of the keys given more than once (a form's checkboxes), in order.
    private var repeated: [String: [String]] = [:]

    /// Parses the raw query (without `?`).
    init(_ raw: String?) {
        guard let raw, !raw.isEmpty else { return }
        for pair in raw.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = Self.decode(parts[0])
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if let first = values[key] {
                repeated[key, default: [first]].append(value)
            } else {
                values[key] = value
            }
        }
    }

    /// Every value given for `key`, in order (empty when absent).
    func all(_ key: String) -> [String] { repeated[key] ?? values[key].map { [$0] } ?? [] }

    subscript(_ key: String) -> String? { values[key] }

    /// A non-negative integer parameter, `fallback` when absent.
    /// - Throws: ``WebError`` 400 when present but not a number.
    func int(_ key: String, default fallback: Int) throws(WebError) -> Int {
        guard let text = values[key], !text.isEmpty else { return fallback }
        guard text.utf8.count <= 12, let n = Int(text), n >= 0 else {
            throw .badRequest("'\(key)' must be a non-negative integer, not '\(text)'")
        }
        return n
    }

    /// Decodes `+` and `%XX`; invalid escapes are kept as written.
    static func decode(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = Array(text.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "+") {
                bytes.append(32)
            } else if b == UInt8(ascii: "%"), it.count >= 2, let hi = hex(it[it.startIndex]), let lo = hex(it[it.startIndex + 1]) {
                bytes.append(hi << 4 | lo)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hex(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: b - 48
        case 65...70: b - 55
        case 97...102: b - 87
        default: nil
        }
    }

    /// Percent-encodes `text` for a query value.
    static func encode(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            switch b {
            case 48...57, 65...90, 97...122, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
                UInt8(ascii: ","), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(b))
            case 32: out += "+"
            default:
                let digits = Array("0123456789ABCDEF".utf8)
                out += "%"
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(b >> 4)]))
                out.unicodeScalars.append(Unicode.Scalar(digits[Int(b & 15)]))
            }
        }
        return out
    }
}
