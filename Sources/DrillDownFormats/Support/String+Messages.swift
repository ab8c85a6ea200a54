extension String {
    /// The text without the quotes ``SourceLocation/describe(_:in:)`` puts around a character.
    var trimmingQuotes: String {
        hasPrefix("'") && hasSuffix("'") && count >= 3 ? String(dropFirst().dropLast()) : self
    }
}
