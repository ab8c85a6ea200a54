import ArgumentParser
import DrillDown

/// A `key=value` argument of `add` and `set`.
enum Assignment {
    /// `key=value` parsed into an attribute, typed (`60` an integer, `true` a boolean) unless `asString`.
    static func parse(_ text: String, asString: Bool) throws -> Attribute {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw ValidationError("expected key=value, found '\(text)'")
        }
        let value = String(text[text.index(after: eq)...])
        return Attribute(key: String(text[..<eq]), value: asString ? Scalar(.string, value) : Scalar(inferring: value))
    }
}
