extension Scalar {
    /// A scalar typed the way people type values: `42` an integer, `2.5` or `1e3` a real,
    /// `true`/`false` a boolean, anything else (`07`, `1.0.0`, `nan`) a string.
    ///
    /// ```swift
    /// Scalar(inferring: "60")      // .integer "60"
    /// Scalar(inferring: "Ping")    // .string "Ping"
    /// ```
    public init(inferring text: String) {
        if text == "true" || text == "false" {
            self.init(.bool, text)
        } else if Self.isInteger(text) {
            self.init(.integer, text)
        } else if Self.isReal(text) {
            self.init(.real, text)
        } else {
            self.init(.string, text)
        }
    }

    /// A number as the scalar a document would hold: an integer when it has no fraction.
    public init(number: Double) {
        if number == number.rounded(), abs(number) < 1e15 {
            self.init(.integer, String(Int64(number)))
        } else {
            self.init(.real, String(number))
        }
    }

    /// `-?(0|[1-9][0-9]*)`: an integer as JSON writes it (so `07` stays a string).
    static func isInteger(_ text: String) -> Bool {
        var digits = Substring(text).utf8[...]
        if digits.first == 45 { digits = digits.dropFirst() }
        guard let first = digits.first, digits.count <= 30, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return false }
        return first != 48 || digits.count == 1
    }

    /// A finite number with a fraction or an exponent, in JSON's grammar (`2.5`, `-1e3`; not `.5`, `1.`, `+1`).
    static func isReal(_ text: String) -> Bool {
        guard let d = Double(text), d.isFinite else { return false }
        let bytes = Array(text.utf8)
        var i = bytes.first == 45 ? 1 : 0
        func digits() -> Int {
            let start = i
            while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 { i += 1 }
            return i - start
        }
        let whole = i
        let n = digits()
        guard n > 0, bytes[whole] != 48 || n == 1 else { return false }
        var isReal = false
        if i < bytes.count, bytes[i] == 46 {
            i += 1
            guard digits() > 0 else { return false }
            isReal = true
        }
        if i < bytes.count, bytes[i] == 101 || bytes[i] == 69 {
            i += 1
            if i < bytes.count, bytes[i] == 43 || bytes[i] == 45 { i += 1 }
            guard digits() > 0 else { return false }
            isReal = true
        }
        return isReal && i == bytes.count
    }

    /// Checks that the text is a well-formed value of the kind, so every writer can write it.
    public func validate(at path: TreePath, key: String) throws(EditError) {
        let ok: Bool
        switch kind {
        case .object, .array: ok = false
        case .integer: ok = Self.isInteger(text)
        case .real: ok = Self.isReal(text) || Self.isInteger(text)
        case .bool: ok = text == "true" || text == "false"
        case .null: ok = text.isEmpty
        case .string, .date, .data: ok = true
        }
        guard ok else { throw EditError("'\(text)' is not a valid \(kind) value for '\(key)'", at: path) }
    }
}
