extension Field {
    /// A label people read, made from an attribute key that no schema labels: words split at
    /// `_`, `-`, spaces and case changes, each capitalised; well-known initialisms in capitals.
    ///
    /// ```swift
    /// Field.readableLabel("lastPinged")   // "Last Pinged"
    /// Field.readableLabel("album_id")     // "Album ID"
    /// Field.readableLabel("HTTPPort")     // "HTTP Port"
    /// ```
    public static func readableLabel(_ key: String) -> String {
        var words: [[Character]] = []
        var word: [Character] = []
        let chars = Array(key)
        for (i, c) in chars.enumerated() {
            if c == "_" || c == "-" || c == " " || c == "." {
                if !word.isEmpty { words.append(word) }
                word = []
                continue
            }
            if let last = word.last, c.isUppercase {
                let nextIsLower = i + 1 < chars.count && chars[i + 1].isLowercase
                if !last.isUppercase || nextIsLower {
                    words.append(word)
                    word = []
                }
            }
            word.append(c)
        }
        if !word.isEmpty { words.append(word) }
        guard !words.isEmpty else { return key }
        return words.map { w -> String in
            let s = String(w)
            if initialisms.contains(s.lowercased()) { return s.uppercased() }
            return s.prefix(1).uppercased() + s.dropFirst()
        }.joined(separator: " ")
    }

    static let initialisms: Set<String> = ["id", "url", "uri", "ip", "api", "html", "json", "xml", "uuid", "isbn", "http", "https"]

    /// The label of this field for reading: the schema's when it gives one, else ``readableLabel(_:)``
    /// of the key.
    public var readingLabel: String { label == key ? Self.readableLabel(key) : label }
}
