import ArgumentParser
import DrillDown

/// A `key=value` argument of `add` and `set`.
enum Assignment {
    /// `key=value` split at its first `=`.
    static func split(_ text: String) throws -> (key: String, value: String) {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw ValidationError("expected key=value, found '\(text)'")
        }
        return (String(text[..<eq]), String(text[text.index(after: eq)...]))
    }
}
