/// YAML 1.1 number spellings as canonical ``TreeStore`` text.
enum YAMLNumbers {
    /// Decimal text of a YAML int (`0x1F`, `0o17`, `017`, `0b101`, `1_000`, `1:30`); `nil` if out of range.
    static func integer(_ raw: String) -> String? {
        var text = Substring(raw.filter { $0 != "_" })
        var negative = false
        if text.first == "-" || text.first == "+" {
            negative = text.first == "-"
            text = text.dropFirst()
        }
        var magnitude: UInt64?
        if text.hasPrefix("0x") {
            magnitude = UInt64(text.dropFirst(2), radix: 16)
        } else if text.hasPrefix("0b") {
            magnitude = UInt64(text.dropFirst(2), radix: 2)
        } else if text.hasPrefix("0o") {
            magnitude = UInt64(text.dropFirst(2), radix: 8)
        } else if text.count > 1 && text.hasPrefix("0") {
            magnitude = UInt64(text.dropFirst(), radix: 8)
        } else if text.contains(":") {
            var total: UInt64 = 0
            for part in text.split(separator: ":") {
                guard let v = UInt64(part) else { return nil }
                total = total * 60 + v
            }
            magnitude = total
        } else {
            return PropertyListNumbers.integer((negative ? "-" : "") + text)
        }
        guard let magnitude else { return nil }
        return (negative && magnitude != 0 ? "-" : "") + String(magnitude)
    }

    /// Canonical text of a YAML float (`1_000.5`, `.5`, `+1e3`, `.inf`, `.NaN`, `1:30.5`).
    static func real(_ raw: String) -> String? {
        let text = raw.filter { $0 != "_" }
        if let canonical = PropertyListNumbers.real(text) { return canonical }
        guard text.contains(":") else { return nil }
        var negative = false
        var body = Substring(text)
        if body.first == "-" || body.first == "+" {
            negative = body.first == "-"
            body = body.dropFirst()
        }
        var total = 0.0
        for part in body.split(separator: ":") {
            guard let v = Double(part) else { return nil }
            total = total * 60 + v
        }
        return PropertyListNumbers.spelling(of: negative ? -total : total)
    }
}
