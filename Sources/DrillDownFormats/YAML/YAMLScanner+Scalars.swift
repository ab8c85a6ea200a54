/// ``YAMLScanner``'s scalars: block (literal, folded), quoted (single, double, with escapes) and plain.
extension YAMLScanner {
    mutating func fetchBlockScalar(literal: Bool) throws(ParseFailure) {
        allowSimpleKey = true
        try removePossibleSimpleKey()
        let start = mark
        advance()
        var chomping = 0  // -1 strip, 0 clip, +1 keep
        var increment = 0
        for _ in 0 ..< 2 {
            let c = at()
            if c == 0x2B || c == 0x2D {
                guard chomping == 0 else { throw error("two chomping indicators in a block scalar's header") }
                chomping = c == 0x2B ? 1 : -1
                advance()
            } else if c >= 0x31 && c <= 0x39 {
                guard increment == 0 else { throw error("two indentation indicators in a block scalar's header") }
                increment = Int(c - 0x30)
                advance()
            } else if c == 0x30 {
                throw error("a block scalar's indentation indicator must be 1 to 9")
            }
        }
        guard Self.isBlankOrEnd(at()) else { throw error("expected a chomping or indentation indicator, a comment or a line break after '\(literal ? "|" : ">")'") }
        try scanLineEnd()
        var value: [UInt8] = []
        var breaks: [UInt8] = []
        let minIndent = max(indent + 1, 0)
        var blockIndent: Int
        if atEnd {
            blockIndent = max(minIndent, 1)
        } else if increment > 0 {
            blockIndent = max(indent, 0) + increment
            if indent < 0 { blockIndent = increment }
            if Self.isBreak(at()) { advance() }
            try scanBlockBreaks(blockIndent, &breaks)
        } else {
            blockIndent = try scanBlockIndentation(minIndent, &breaks)
        }
        var lineBreak: [UInt8] = []
        var first = true
        var leadingBlank = false
        while mark.column == blockIndent && !atEnd && !atDocumentMarker() {
            let trailingBlank = Self.isBlank(at())
            if !literal, !first, lineBreak == [0x0A], !leadingBlank, !trailingBlank {
                if breaks.isEmpty { value.append(0x20) }
            } else if !first {
                value.append(contentsOf: lineBreak)
            }
            value.append(contentsOf: breaks)
            breaks.removeAll()
            first = false
            leadingBlank = Self.isBlank(at())
            let from = mark.offset
            while !Self.isBreak(at()) && !atEnd { advance() }
            value.append(contentsOf: UnsafeBufferPointer(start: base + from, count: mark.offset - from))
            if atEnd {
                // The end of the input ends the last line as a line break would.
                lineBreak = [0x0A]
                break
            }
            advance()
            lineBreak = [0x0A]
            try scanBlockBreaks(blockIndent, &breaks)
        }
        if first { lineBreak = [] }
        if chomping != -1 { value.append(contentsOf: lineBreak) }
        if chomping == 1 { value.append(contentsOf: breaks) }
        if first && chomping != 1 && value == [0x0A] { value = [] }
        tokens.append(Token(kind: .scalar, start: start, value: value, style: literal ? .literal : .folded))
        beginLine()
    }

    /// Finds the indentation of a block scalar with none given: the first text line's, at least
    /// `minIndent` and at least the leading empty lines' (more is an error).
    mutating func scanBlockIndentation(_ minIndent: Int, _ breaks: inout [UInt8]) throws(ParseFailure) -> Int {
        var maxIndent = 0
        var maxMark = mark
        // Past the header's line end.
        if Self.isBreak(at()) { advance() }
        while true {
            while at() == 0x20 { advance() }
            if mark.column > maxIndent {
                maxIndent = mark.column
                maxMark = mark
            }
            if Self.isBreak(at()) || (atEnd && mark.column > 0) {
                breaks.append(0x0A)
                if atEnd { break }
                advance()
                continue
            }
            if at() == 0x09 && mark.column < minIndent && Self.lineIsBlank(base, mark.offset, count) {
                throw error("a tab in a block scalar's indentation; use spaces")
            }
            break
        }
        if atEnd || atDocumentMarker() { return max(maxIndent, minIndent, 1) }
        if maxIndent > mark.column, mark.column >= minIndent {
            throw error("a leading empty line of the block scalar is indented more than its first text line", at: maxMark)
        }
        // Text less indented than the minimum is not the scalar's: the scalar is empty.
        return max(mark.column, minIndent)
    }

    /// Takes empty lines (kept in `breaks`) and the indentation of the next line, up to `indent`.
    mutating func scanBlockBreaks(_ indent: Int, _ breaks: inout [UInt8]) throws(ParseFailure) {
        while true {
            while mark.column < indent && at() == 0x20 { advance() }
            if Self.isBreak(at()) || (atEnd && mark.column > 0) {
                breaks.append(0x0A)
                if atEnd { return }
                advance()
                continue
            }
            if mark.column < indent && at() == 0x09 && Self.lineIsBlank(base, mark.offset, count) {
                throw error("a tab in a block scalar's indentation; use spaces")
            }
            return
        }
    }

    static func lineIsBlank(_ base: UnsafePointer<UInt8>, _ from: Int, _ count: Int) -> Bool {
        var i = from
        while i < count && (base[i] == 0x20 || base[i] == 0x09) { i += 1 }
        return i >= count || base[i] == 0x0A || base[i] == 0x0D
    }

    mutating func fetchQuoted(double: Bool) throws(ParseFailure) {
        try savePossibleSimpleKey()
        allowSimpleKey = false
        let start = mark
        let quote: UInt8 = double ? 0x22 : 0x27
        advance()
        var value: [UInt8] = []
        while true {
            // Text up to a line break, the closing quote or an escape.
            var spacesFrom = -1
            while true {
                let c = at()
                if atEnd { throw error("the \(double ? "double" : "single")-quoted scalar is not closed", at: start) }
                if c == quote {
                    if !double && at(1) == 0x27 {
                        value.append(0x27)
                        advance(2)
                        spacesFrom = -1
                        continue
                    }
                    break
                }
                if Self.isBreak(c) { break }
                if double && c == 0x5C {
                    if Self.isBreak(at(1)) {
                        // An escaped line break: the line ends here with nothing, keeping its blanks.
                        spacesFrom = -1
                        advance()
                        advance()
                        try skipQuotedIndentation(start)
                        continue
                    }
                    try scanEscape(&value)
                    spacesFrom = -1
                    continue
                }
                if Self.isBlank(c) {
                    if spacesFrom < 0 { spacesFrom = value.count }
                } else {
                    spacesFrom = -1
                }
                let from = mark.offset
                advance()
                value.append(contentsOf: UnsafeBufferPointer(start: base + from, count: mark.offset - from))
            }
            if at() == quote { break }
            // A line break: trailing blanks go; one break folds to a space, more keep all but one.
            if spacesFrom >= 0 { value.removeLast(value.count - spacesFrom) }
            advance()
            var breaks = 0
            try skipQuotedIndentation(start)
            while Self.isBreak(at()) {
                breaks += 1
                advance()
                try skipQuotedIndentation(start)
            }
            if breaks == 0 { value.append(0x20) } else { value.append(contentsOf: repeatElement(0x0A, count: breaks)) }
        }
        advance()
        tokens.append(Token(kind: .scalar, start: start, value: value, style: double ? .double : .single))
        markJSONLike()
    }

    /// The indentation of a quoted scalar's continuation line: past the enclosing block's, never a document marker.
    mutating func skipQuotedIndentation(_ start: Mark) throws(ParseFailure) {
        if atDocumentMarker() { throw error("a document marker inside a quoted scalar; close the quotes first") }
        while at() == 0x20 { advance() }
        let spaces = mark.column
        while Self.isBlank(at()) { advance() }
        if !Self.isBreak(at()) && !atEnd && indent >= 0 && spaces <= indent {
            throw error("a quoted scalar's continuation line must be indented more than its block (column \(indent + 1))")
        }
    }

    mutating func scanEscape(_ value: inout [UInt8]) throws(ParseFailure) {
        let escapeMark = mark
        advance()
        let c = at()
        var hexDigits = 0
        switch c {
        case 0x30: value.append(0)
        case 0x61: value.append(7)
        case 0x62: value.append(8)
        case 0x74, 0x09: value.append(9)
        case 0x6E: value.append(0x0A)
        case 0x76: value.append(0x0B)
        case 0x66: value.append(0x0C)
        case 0x72: value.append(0x0D)
        case 0x65: value.append(0x1B)
        case 0x20: value.append(0x20)
        case 0x22: value.append(0x22)
        case 0x2F: value.append(0x2F)
        case 0x5C: value.append(0x5C)
        case 0x4E: value.append(contentsOf: [0xC2, 0x85])
        case 0x5F: value.append(contentsOf: [0xC2, 0xA0])
        case 0x4C: value.append(contentsOf: [0xE2, 0x80, 0xA8])
        case 0x50: value.append(contentsOf: [0xE2, 0x80, 0xA9])
        case 0x78: hexDigits = 2
        case 0x75: hexDigits = 4
        case 0x55: hexDigits = 8
        default: throw error("unknown escape '\\\(Self.describe(c))' in a double-quoted scalar", at: escapeMark)
        }
        advance()
        guard hexDigits > 0 else { return }
        var code: UInt32 = 0
        for _ in 0 ..< hexDigits {
            guard let digit = UInt8(exactly: at()).flatMap({ UInt32(String(UnicodeScalar($0)), radix: 16) }) else {
                throw error("expected \(hexDigits) hexadecimal digits in the escape", at: escapeMark)
            }
            code = code * 16 + digit
            advance()
        }
        guard let scalar = Unicode.Scalar(code) else { throw error("the escape names no Unicode character", at: escapeMark) }
        value.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    mutating func fetchPlain() throws(ParseFailure) {
        try savePossibleSimpleKey()
        allowSimpleKey = false
        let start = mark
        var value: [UInt8] = []
        var pendingBreaks = 0
        var pending = false
        let inFlow = !flows.isEmpty
        while true {
            if at() == 0x23 { break }
            // One line's text.
            var lineStartOffset = -1
            var lineEnd = -1
            while true {
                let c = at()
                if Self.isBlankOrEnd(c) { break }
                if c == 0x3A {
                    let n = at(1)
                    if Self.isBlankOrEnd(n) || (inFlow && Self.isFlowIndicator(n)) { break }
                }
                if inFlow && Self.isFlowIndicator(c) { break }
                if lineStartOffset < 0 { lineStartOffset = mark.offset }
                advance()
                lineEnd = mark.offset
                // Blanks inside the line, then more text.
                var k = 0
                while Self.isBlank(at(k)) { k += 1 }
                if k > 0 {
                    let after = at(k)
                    if after == 0x23 || Self.isBreak(after) || mark.offset + k >= count { break }
                    if after == 0x3A && (Self.isBlankOrEnd(at(k + 1)) || (inFlow && Self.isFlowIndicator(at(k + 1)))) { break }
                    if inFlow && Self.isFlowIndicator(after) { break }
                    advance(k)
                }
            }
            guard lineStartOffset >= 0 else { break }
            if pending {
                if pendingBreaks == 0 { value.append(0x20) } else { value.append(contentsOf: repeatElement(0x0A, count: pendingBreaks)) }
            }
            value.append(contentsOf: UnsafeBufferPointer(start: base + lineStartOffset, count: lineEnd - lineStartOffset))
            // Continuation lines: after blank lines, text indented past the block (in flow: past the enclosing block).
            let save = mark
            while Self.isBlank(at()) { advance() }
            guard Self.isBreak(at()) else {
                mark = save
                break
            }
            var breaks = -1
            var spaces = 0
            while Self.isBreak(at()) {
                advance()
                breaks += 1
                while at() == 0x20 { advance() }
                spaces = mark.column
                if atDocumentMarker() { break }
                while Self.isBlank(at()) { advance() }
            }
            if atEnd || atDocumentMarker() || at() == 0x23 || spaces <= indent {
                // Not a continuation: back to before the line break for the next token.
                mark = save
                break
            }
            pending = true
            pendingBreaks = breaks
        }
        tokens.append(Token(kind: .scalar, start: start, value: value, style: .plain))
    }
}
