/// Cutting and wrapping text to a number of terminal cells, never splitting a grapheme.
///
/// ```swift
/// TextFitting.truncate("Screen Guide", to: 8)         // "Screen …"
/// TextFitting.truncateHead("Root › Item 4", to: 8)   // "…› Item 4"
/// TextFitting.wrap("a long value", to: 6)            // ["a long", "value"]
/// ```
public enum TextFitting {
    /// `text` cut to at most `width` cells, ending in `…` when something was cut.
    /// - Complexity: O(n)
    public static func truncate(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if text.utf8.count <= width || DisplayWidth.of(text) <= width { return text }
        var result = ""
        var used = 0
        for c in text {
            let w = DisplayWidth.of(c)
            if used + w > width - 1 { break }
            result.append(c)
            used += w
        }
        result.append("…")
        return result
    }

    /// `text` cut from the front to at most `width` cells, starting with `…` when something was cut.
    /// - Complexity: O(n)
    public static func truncateHead(_ text: String, to width: Int) -> String {
        guard width > 0 else { return "" }
        if DisplayWidth.of(text) <= width { return text }
        var kept: [Character] = []
        var used = 0
        for c in text.reversed() {
            let w = DisplayWidth.of(c)
            if used + w > width - 1 { break }
            kept.append(c)
            used += w
        }
        return "…" + String(kept.reversed())
    }

    /// `text` padded with spaces (or cut) to exactly `width` cells.
    public static func pad(_ text: String, to width: Int) -> String {
        let cut = truncate(text, to: width)
        let w = DisplayWidth.of(cut)
        return w >= width ? cut : cut + String(repeating: " ", count: width - w)
    }

    /// `text` broken into lines of at most `width` cells, at spaces where possible and inside
    /// words only when a word is longer than a line. Newlines in `text` start new lines.
    /// - Complexity: O(n)
    public static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: false) {
                var word = Substring(word)
                var ww = DisplayWidth.of(word)
                let gap = line.isEmpty ? 0 : 1
                if lineWidth + gap + ww <= width {
                    if gap == 1 { line.append(" ") }
                    line += word
                    lineWidth += gap + ww
                    continue
                }
                if !line.isEmpty {
                    lines.append(line)
                    line = ""
                    lineWidth = 0
                }
                while ww > width {
                    var head = ""
                    var used = 0
                    var index = word.startIndex
                    while index < word.endIndex {
                        let w = DisplayWidth.of(word[index])
                        if used + w > width, used > 0 { break }
                        head.append(word[index])
                        used += w
                        index = word.index(after: index)
                    }
                    lines.append(head)
                    word = word[index...]
                    ww -= used
                }
                line = String(word)
                lineWidth = ww
            }
            lines.append(line)
        }
        return lines
    }
}
