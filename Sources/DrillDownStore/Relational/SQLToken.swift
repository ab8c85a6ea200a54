/// A token of SQL text: enough to pick the CHECK clauses out of a `CREATE TABLE` statement and the
/// simple conditions out of a CHECK expression (see ``TableCheck``). Comments are skipped.
struct SQLToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A bare word: an identifier or a keyword, as written.
        case word
        /// A quoted identifier (`"name"`, `` `name` ``, `[name]`), unquoted.
        case identifier
        /// A string literal, its content unescaped.
        case string
        /// A number as written.
        case number
        /// Punctuation or an operator: `(`, `)`, `,`, `>=`, `::`, …
        case symbol
    }

    var kind: Kind
    var text: String
    /// Where it is in the text it was read from.
    var range: Range<String.Index>

    /// Whether the token is the keyword `word` (any case).
    func isKeyword(_ word: String) -> Bool { kind == .word && text.caseInsensitiveCompare(word) == .orderedSame }

    func isSymbol(_ symbol: String) -> Bool { kind == .symbol && text == symbol }

    /// The tokens of `sql`.
    static func tokens(_ sql: String) -> [SQLToken] {
        var tokens: [SQLToken] = []
        var i = sql.startIndex
        func peek(_ offset: Int = 0) -> Character? {
            guard let j = sql.index(i, offsetBy: offset, limitedBy: sql.endIndex), j < sql.endIndex else { return nil }
            return sql[j]
        }
        while i < sql.endIndex {
            let c = sql[i]
            let start = i
            if c.isWhitespace {
                i = sql.index(after: i)
            } else if c == "-", peek(1) == "-" {
                i = sql[i...].firstIndex(of: "\n") ?? sql.endIndex
            } else if c == "/", peek(1) == "*" {
                i = sql.range(of: "*/", range: sql.index(i, offsetBy: 2) ..< sql.endIndex)?.upperBound ?? sql.endIndex
            } else if c == "'" || c == "\"" || c == "`" || (c == "[" && !isBracket(tokens.last, at: i, next: peek(1))) {
                let close: Character = c == "[" ? "]" : c
                var text = ""
                i = sql.index(after: i)
                while i < sql.endIndex {
                    if sql[i] == close {
                        let next = sql.index(after: i)
                        if close != "]", next < sql.endIndex, sql[next] == close {
                            text.append(close)
                            i = sql.index(after: next)
                            continue
                        }
                        i = next
                        break
                    }
                    text.append(sql[i])
                    i = sql.index(after: i)
                }
                tokens.append(SQLToken(kind: c == "'" ? .string : .identifier, text: text, range: start ..< i))
            } else if c.isNumber || (c == "." && peek(1)?.isNumber == true) {
                while i < sql.endIndex, sql[i].isNumber || sql[i] == "." || sql[i].lowercased() == "e"
                    || ((sql[i] == "+" || sql[i] == "-") && sql[sql.index(before: i)].lowercased() == "e")
                {
                    i = sql.index(after: i)
                }
                tokens.append(SQLToken(kind: .number, text: String(sql[start ..< i]), range: start ..< i))
            } else if c.isLetter || c == "_" {
                while i < sql.endIndex, sql[i].isLetter || sql[i].isNumber || sql[i] == "_" || sql[i] == "$" { i = sql.index(after: i) }
                tokens.append(SQLToken(kind: .word, text: String(sql[start ..< i]), range: start ..< i))
            } else {
                let two = peek(1).map { String([c, $0]) } ?? ""
                let symbol = [">=", "<=", "<>", "!=", "::", "==", "||"].contains(two) ? two : String(c)
                i = sql.index(i, offsetBy: symbol.count)
                tokens.append(SQLToken(kind: .symbol, text: symbol, range: start ..< i))
            }
        }
        return tokens
    }

    /// Whether a `[` at `index` is PostgreSQL's bracket (`ARRAY[…]`, `text[]`, `x[1]`) rather than
    /// the start of SQLite's `[quoted identifier]`.
    static func isBracket(_ previous: SQLToken?, at index: String.Index, next: Character?) -> Bool {
        if next == "]" { return true }
        guard let previous else { return false }
        if previous.isKeyword("ARRAY") { return true }
        return previous.range.upperBound == index && (previous.kind != .symbol || previous.text == ")" || previous.text == "]")
    }

    /// The index of the `)` that closes the `(` at `open`, or `nil` when it is not closed.
    static func closing(_ tokens: [SQLToken], from open: Int) -> Int? {
        var depth = 0
        for j in open ..< tokens.count {
            if tokens[j].isSymbol("(") { depth += 1 }
            if tokens[j].isSymbol(")") {
                depth -= 1
                if depth == 0 { return j }
            }
        }
        return nil
    }
}
