/// YAML 1.1 number spellings as canonical ``TreeStore`` text.
enum YAMLNumbers {
    /// The most digits a non-decimal integer may have (its conversion to decimal is quadratic).
    static let maxDigits = 4_096

    /// Decimal text of a YAML int (`0x1F`, `0o17`, `017`, `0b101`, `1_000`, `1:30`), exact at any
    /// size (YAML 1.1 integers are unbounded, as in PyYAML); `nil` if it is not an int or is a
    /// non-decimal one longer than ``maxDigits``.
    static func integer(_ raw: String) -> String? {
        var text = Substring(raw.filter { $0 != "_" })
        var negative = false
        if text.first == "-" || text.first == "+" {
            negative = text.first == "-"
            text = text.dropFirst()
        }
        let digits: [UInt32]
        let radix: UInt32
        if text.hasPrefix("0x") {
            (digits, radix) = (Self.digits(text.dropFirst(2), radix: 16), 16)
        } else if text.hasPrefix("0b") {
            (digits, radix) = (Self.digits(text.dropFirst(2), radix: 2), 2)
        } else if text.hasPrefix("0o") {
            (digits, radix) = (Self.digits(text.dropFirst(2), radix: 8), 8)
        } else if text.count > 1 && text.hasPrefix("0") && !text.contains(":") {
            (digits, radix) = (Self.digits(text.dropFirst(), radix: 8), 8)
        } else if text.contains(":") {
            // Base 60: the first part is decimal, each further part one base-60 digit.
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard let first = parts.first, let head = PropertyListNumbers.integer(String(first)), !head.hasPrefix("-") else { return nil }
            var sexagesimal: [UInt32] = []
            for part in parts.dropFirst() {
                guard let v = UInt32(part), v < 60 else { return nil }
                sexagesimal.append(v)
            }
            guard head.utf8.count + sexagesimal.count <= maxDigits else { return nil }
            var limbs = Self.decimalLimbs(head)
            for v in sexagesimal { multiplyAdd(&limbs, by: 60, adding: v) }
            return signed(decimal(limbs), negative)
        } else {
            return PropertyListNumbers.integer((negative ? "-" : "") + text)
        }
        guard !digits.isEmpty, digits.count <= maxDigits, digits.allSatisfy({ $0 < radix }) else { return nil }
        var limbs: [UInt32] = [0]
        for d in digits { multiplyAdd(&limbs, by: radix, adding: d) }
        return signed(decimal(limbs), negative)
    }

    private static func signed(_ magnitude: String, _ negative: Bool) -> String {
        negative && magnitude != "0" ? "-" + magnitude : magnitude
    }

    /// The digit values of `text` in `radix` (a value of `radix` or more marks an invalid digit).
    private static func digits(_ text: Substring, radix: UInt32) -> [UInt32] {
        text.unicodeScalars.map { scalar in
            switch scalar.value {
            case 0x30 ... 0x39: scalar.value - 0x30
            case 0x41 ... 0x46: scalar.value - 0x37
            case 0x61 ... 0x66: scalar.value - 0x57
            default: radix
            }
        }
    }

    /// Little-endian base-10⁹ limbs of decimal digits.
    private static func decimalLimbs(_ text: String) -> [UInt32] {
        var limbs: [UInt32] = [0]
        for c in text.utf8 { multiplyAdd(&limbs, by: 10, adding: UInt32(c - 0x30)) }
        return limbs
    }

    /// `limbs = limbs × factor + addend` in base 10⁹ (no overflow: every step fits in 64 bits).
    private static func multiplyAdd(_ limbs: inout [UInt32], by factor: UInt32, adding addend: UInt32) {
        var carry = UInt64(addend)
        for i in limbs.indices {
            let v = UInt64(limbs[i]) * UInt64(factor) + carry
            limbs[i] = UInt32(v % 1_000_000_000)
            carry = v / 1_000_000_000
        }
        while carry > 0 {
            limbs.append(UInt32(carry % 1_000_000_000))
            carry /= 1_000_000_000
        }
    }

    private static func decimal(_ limbs: [UInt32]) -> String {
        var end = limbs.count
        while end > 1 && limbs[end - 1] == 0 { end -= 1 }
        var text = String(limbs[end - 1])
        for limb in limbs[0 ..< end - 1].reversed() {
            let part = String(limb)
            text += String(repeating: "0", count: 9 - part.count) + part
        }
        return text
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
