/// The canonical text of numbers read from property lists and YAML.
///
/// Integers are kept as decimal digits with an optional `-`; reals as a JSON-style literal when
/// they were written as one, otherwise as Swift's shortest round-tripping spelling
/// (`inf`, `-inf` and `nan` for the special values).
enum PropertyListNumbers {
    /// Decimal text of an integer written in decimal or `0x` hex, with an optional sign; `nil` if invalid.
    static func integer(_ text: String) -> String? {
        var body = Substring(text)
        var negative = false
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        guard !body.isEmpty else { return nil }
        if body.hasPrefix("0x") || body.hasPrefix("0X") {
            guard let value = UInt64(body.dropFirst(2), radix: 16) else { return nil }
            return (negative && value != 0 ? "-" : "") + String(value)
        }
        guard body.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var digits = body.drop { $0 == "0" }
        if digits.isEmpty { digits = "0" }
        return (negative && digits != "0" ? "-" : "") + digits
    }

    /// Canonical text of a real; `nil` when `text` is not a number.
    static func real(_ text: String) -> String? {
        switch text.lowercased() {
        case "inf", "+inf", "infinity", "+infinity", ".inf", "+.inf": return "inf"
        case "-inf", "-infinity", "-.inf": return "-inf"
        case "nan", ".nan": return "nan"
        default: break
        }
        if ScalarText.isJSONNumber(ArraySlice(text.utf8)) { return text }
        guard let value = Double(text) else { return nil }
        return spelling(of: value)
    }

    /// The text of a real value: Swift's shortest round-tripping form, `inf`/`-inf`/`nan` for specials.
    static func spelling(of value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return value.description
    }
}
