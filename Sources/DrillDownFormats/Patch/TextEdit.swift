/// One replacement in a text: the bytes `range` of the old text become `bytes`.
struct TextEdit {
    var range: Range<Int>
    var bytes: [UInt8]

    /// The edit that replaces children `range` of a non-empty comma-separated collection (a JSON
    /// array or object, a YAML flow collection) by `items`, keeping the whitespace the collection
    /// puts after its commas. `starts[i]` is child i's first byte, `ends[i]` one past its last.
    static func replacingItems(
        _ range: Range<Int>, starts: [Int], ends: [Int], with items: [[UInt8]], in text: [UInt8]
    ) -> TextEdit {
        let n = starts.count
        /// The whitespace before child `i` (after the separator or the opening bracket).
        func gap(_ i: Int) -> [UInt8] {
            var s = starts[i]
            while s > 0, text[s - 1] == 0x20 || text[s - 1] == 0x0A || text[s - 1] == 0x0D || text[s - 1] == 0x09 { s -= 1 }
            return Array(text[s ..< starts[i]])
        }
        if range.upperBound < n {
            let separator = [0x2C] + gap(range.upperBound)
            return TextEdit(range: starts[range.lowerBound] ..< starts[range.upperBound], bytes: Array(items.map { $0 + separator }.joined()))
        }
        if range.lowerBound > 0 {
            let separator = [0x2C] + gap(range.lowerBound == n ? n - 1 : range.lowerBound)
            return TextEdit(range: ends[range.lowerBound - 1] ..< ends[n - 1], bytes: Array(items.map { separator + $0 }.joined()))
        }
        return TextEdit(range: starts[0] ..< ends[n - 1], bytes: Array(items.joined(separator: [0x2C] + gap(0))))
    }

    /// `text` with `edits` applied; the edits must not overlap (they are applied in order of position).
    static func apply(_ edits: [TextEdit], to text: [UInt8]) -> [UInt8]? {
        let sorted = edits.enumerated().sorted { ($0.element.range.lowerBound, $0.offset) < ($1.element.range.lowerBound, $1.offset) }.map(\.element)
        var out: [UInt8] = []
        out.reserveCapacity(text.count + sorted.reduce(0) { $0 + $1.bytes.count })
        var at = 0
        for edit in sorted {
            guard edit.range.lowerBound >= at, edit.range.upperBound <= text.count else { return nil }
            out.append(contentsOf: text[at ..< edit.range.lowerBound])
            out.append(contentsOf: edit.bytes)
            at = edit.range.upperBound
        }
        out.append(contentsOf: text[at...])
        return out
    }
}

/// Layout facts read from a text: a line's indentation, whether it is laid out on several lines.
struct TextLayout {
    let text: [UInt8]

    /// The start of the line holding `offset`.
    func lineStart(_ offset: Int) -> Int {
        var i = min(offset, text.count)
        while i > 0, text[i - 1] != 0x0A { i -= 1 }
        return i
    }

    /// The spaces and tabs that begin the line holding `offset`.
    func indent(ofLineAt offset: Int) -> [UInt8] {
        var i = lineStart(offset)
        var out: [UInt8] = []
        while i < text.count, text[i] == 0x20 || text[i] == 0x09 {
            out.append(text[i])
            i += 1
        }
        return out
    }

    /// Whether only spaces and tabs come before `offset` on its line.
    func startsLine(_ offset: Int) -> Bool {
        var i = offset
        while i > 0 {
            let c = text[i - 1]
            if c == 0x0A { return true }
            if c != 0x20 && c != 0x09 { return false }
            i -= 1
        }
        return true
    }

    /// The end of the line holding `offset`, after its newline (or the end of the text).
    func lineEnd(_ offset: Int) -> Int {
        var i = offset
        while i < text.count, text[i] != 0x0A { i += 1 }
        return min(i + 1, text.count)
    }

    /// The first indentation step the text uses (the indentation of its first indented line), else two spaces.
    func indentUnit() -> [UInt8] {
        var i = 0
        while i < text.count {
            if text[i] == 0x0A, i + 1 < text.count, text[i + 1] == 0x20 || text[i + 1] == 0x09 {
                let ind = indent(ofLineAt: i + 1)
                if !ind.isEmpty { return ind }
            }
            i += 1
        }
        return [0x20, 0x20]
    }

    /// `rendered` (written at two spaces per level from column 0) placed at `base`: every line
    /// after the first gets `base` plus `unit` per level; the trailing newline is dropped.
    static func reindent(_ rendered: [UInt8], base: [UInt8], unit: [UInt8]) -> [UInt8] {
        var lines = rendered.split(separator: 0x0A, omittingEmptySubsequences: false)
        while let last = lines.last, last.isEmpty { lines.removeLast() }
        var out: [UInt8] = []
        for (n, line) in lines.enumerated() {
            if n > 0 {
                out.append(0x0A)
                var spaces = 0
                while spaces < line.count, line[line.startIndex + spaces] == 0x20 { spaces += 1 }
                out.append(contentsOf: base)
                for _ in 0 ..< spaces / 2 { out.append(contentsOf: unit) }
                out.append(contentsOf: line.dropFirst(spaces - spaces % 2))
            } else {
                out.append(contentsOf: line)
            }
        }
        return out
    }
}
