/// Text from a document made safe to show on a terminal: every control character becomes a
/// visible stand-in, so a title holding `ESC ] 52 …` shows as text instead of writing to the
/// clipboard. The one rule every text front end uses (the terminal UI's cells, the CLI's output
/// when it is a terminal); JSON and files keep the exact text.
///
/// - C0 controls (U+0000–U+001F, tab and newline included) become their Control Pictures
///   (`␛` for ESC, `␊` for a newline), DEL becomes `␡`;
/// - C1 controls (U+0080–U+009F, such as the single-character CSI U+009B) and the bidirectional
///   embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), which can reorder what
///   follows them, become `\u009b`-style escapes.
///
/// ```swift
/// VisibleText.escaping("a\u{1B}]52;c;eA==\u{07}b")   // "a␛]52;c;eA==␇b"
/// VisibleText.escaping("\u{202E}txt")               // "\\u202etxt"
/// ```
public enum VisibleText {
    /// Whether `scalar` may not be written to a terminal as it is.
    @inlinable
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return v < 0x20 || (v >= 0x7F && v < 0xA0) || (v >= 0x202A && v <= 0x202E) || (v >= 0x2066 && v <= 0x2069)
    }

    /// Whether `text` holds a control character. Scans the UTF-8 bytes, with no allocation.
    /// - Complexity: O(n) in the UTF-8 length.
    public static func needsEscaping(_ text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable({ containsControl($0) }) { return answer }
        return text.unicodeScalars.contains(where: isControl)
    }

    static func containsControl(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x20 || b == 0x7F { return true }
            if b == 0xC2, i + 1 < n, bytes[i + 1] >= 0x80, bytes[i + 1] < 0xA0 { return true }
            if b == 0xE2, i + 2 < n {
                let b1 = bytes[i + 1], b2 = bytes[i + 2]
                if b1 == 0x80, b2 >= 0xAA, b2 <= 0xAE { return true }
                if b1 == 0x81, b2 >= 0xA6, b2 <= 0xA9 { return true }
            }
            i += 1
        }
        return false
    }

    /// The visible stand-in for a control character (see the type's notes).
    public static func replacement(for scalar: Unicode.Scalar) -> String {
        let v = scalar.value
        if v < 0x20, let picture = Unicode.Scalar(0x2400 + v) { return String(picture) }
        if v == 0x7F { return "\u{2421}" }
        let hex = String(v, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `text` with every control character replaced by its stand-in; `text` itself when it has none.
    /// - Complexity: O(n).
    public static func escaping(_ text: String) -> String {
        guard needsEscaping(text) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result.append(contentsOf: replacement(for: scalar).unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
