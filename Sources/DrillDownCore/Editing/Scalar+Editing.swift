extension Scalar {
    /// A scalar typed the way people type values: `42` an integer, `2.5` or `1e3` a real,
    /// `true`/`false` a boolean, anything else a string.
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

    static func isInteger(_ text: String) -> Bool {
        var digits = Substring(text)
        if digits.first == "-" { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.utf8.count <= 30 && digits.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    static func isReal(_ text: String) -> Bool {
        guard let d = Double(text), d.isFinite else { return false }
        return text.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 || $0 == 101 || $0 == 69 }
    }

    /// Checks that the text is a well-formed value of the kind, so every writer can write it.
    func validate(at path: TreePath, key: String) throws(EditError) {
        let ok: Bool
        switch kind {
        case .object, .array: ok = false
        case .integer: ok = Self.isInteger(text)
        case .real: ok = Self.isReal(text)
        case .bool: ok = text == "true" || text == "false"
        case .null: ok = text.isEmpty
        case .string, .date, .data: ok = true
        }
        guard ok else { throw EditError("'\(text)' is not a valid \(kind) value for '\(key)'", at: path) }
    }
}
