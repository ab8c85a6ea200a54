/// Reads a ``Filter`` expression, keeping each part's column for errors.
///
/// ```
/// expression := conjunction ('or' conjunction)*
/// conjunction := term ('and' term)*
/// term := '(' expression ')' | field ( op value | 'in' '(' value (',' value)* ')' | 'exists' )
/// ```
struct FilterParser {
    let text: String
    let chars: [Character]
    var i = 0
    var depth = 0

    init(_ text: String) {
        self.text = text
        chars = Array(text)
    }

    static let operatorCharacters: Set<Character> = ["=", "!", "<", ">", "~"]
    static let maxDepth = 32

    mutating func parse() throws(FilterError) -> Filter {
        skipSpace()
        guard i < chars.count else { throw fail("expected a condition such as length>360 or genre=Rock") }
        let filter = try expression()
        skipSpace()
        if i < chars.count { throw fail("expected 'and', 'or' or the end, found '\(String(chars[i...]))'") }
        return Self.sourced(filter, text)
    }

    /// `filter` with each condition remembering the expression it came from.
    static func sourced(_ filter: Filter, _ text: String) -> Filter {
        switch filter {
        case .condition(var c):
            c.expression = text
            return .condition(c)
        case .and(let parts): return .and(parts.map { sourced($0, text) })
        case .or(let parts): return .or(parts.map { sourced($0, text) })
        }
    }

    func fail(_ message: String, at column: Int? = nil) -> FilterError {
        FilterError(message, column: column ?? (i + 1), expression: text)
    }

    mutating func skipSpace() { while i < chars.count, chars[i].isWhitespace { i += 1 } }

    /// Whether the keyword `word` (any case) starts at the cursor and ends at a boundary.
    func atKeyword(_ word: String) -> Bool {
        let w = Array(word)
        guard i + w.count <= chars.count else { return false }
        for k in 0 ..< w.count where chars[i + k].lowercased() != String(w[k]) { return false }
        let end = i + w.count
        return end == chars.count || chars[end].isWhitespace || chars[end] == "(" || chars[end] == ")"
    }

    mutating func expression() throws(FilterError) -> Filter {
        var parts = [try conjunction()]
        while true {
            skipSpace()
            guard atKeyword("or") else { break }
            i += 2
            parts.append(try conjunction())
        }
        return parts.count == 1 ? parts[0] : .or(parts.flatMap { if case .or(let inner) = $0 { inner } else { [$0] } })
    }

    mutating func conjunction() throws(FilterError) -> Filter {
        var parts = [try term()]
        while true {
            skipSpace()
            guard atKeyword("and") else { break }
            i += 3
            parts.append(try term())
        }
        return parts.count == 1 ? parts[0] : .and(parts.flatMap { if case .and(let inner) = $0 { inner } else { [$0] } })
    }

    mutating func term() throws(FilterError) -> Filter {
        skipSpace()
        guard i < chars.count else { throw fail("expected a condition after '\(String(chars[..<i]).trimmingCharacters(in: .whitespaces).split(separator: " ").last ?? "")'") }
        if chars[i] == "(" {
            let open = i
            depth += 1
            guard depth <= Self.maxDepth else { throw fail("parentheses nest deeper than \(Self.maxDepth)") }
            i += 1
            let inner = try expression()
            skipSpace()
            guard i < chars.count, chars[i] == ")" else { throw fail("expected ')' to close the '(' at column \(open + 1)") }
            i += 1
            depth -= 1
            return inner
        }
        let fieldColumn = i + 1
        let field = try fieldName()
        skipSpace()
        if atKeyword("exists") {
            i += 6
            return .condition(.init(field: field, op: .exists, values: [], fieldColumn: fieldColumn))
        }
        if atKeyword("in") {
            i += 2
            skipSpace()
            guard i < chars.count, chars[i] == "(" else { throw fail("expected '(' and a list of values after 'in', e.g. genre in (Rock, Jazz)") }
            i += 1
            var values: [String] = [], columns: [Int] = []
            while true {
                skipSpace()
                columns.append(i + 1)
                values.append(try value(inList: true))
                skipSpace()
                guard i < chars.count else { throw fail("expected ',' or ')' in the list of values") }
                if chars[i] == "," {
                    i += 1
                    continue
                }
                guard chars[i] == ")" else { throw fail("expected ',' or ')' in the list of values, found '\(chars[i])'") }
                i += 1
                break
            }
            return .condition(.init(field: field, op: .oneOf, values: values, fieldColumn: fieldColumn, valueColumns: columns))
        }
        guard i < chars.count, Self.operatorCharacters.contains(chars[i]) else {
            throw fail(i < chars.count
                ? "expected an operator (= != < <= > >= ~ in exists) after '\(field)', found '\(chars[i])'"
                : "expected an operator (= != < <= > >= ~ in exists) after '\(field)'")
        }
        var opText = String(chars[i])
        if i + 1 < chars.count, chars[i + 1] == "=", chars[i] != "=", chars[i] != "~" { opText.append("=") }
        guard let op = FilterOperator(rawValue: opText) else { throw fail("'\(opText)' is not an operator; use = != < <= > >= ~ in exists") }
        i += opText.count
        skipSpace()
        let valueColumn = i + 1
        guard i < chars.count, chars[i] != ")" else { throw fail("expected a value after '\(op.rawValue)'") }
        let v = try value(inList: false)
        return .condition(.init(field: field, op: op, values: [v], fieldColumn: fieldColumn, valueColumns: [valueColumn]))
    }

    mutating func fieldName() throws(FilterError) -> String {
        if i < chars.count, chars[i] == "\"" || chars[i] == "'" { return try quoted() }
        let start = i
        while i < chars.count, !chars[i].isWhitespace, !Self.operatorCharacters.contains(chars[i]), !"(),\"'".contains(chars[i]) { i += 1 }
        guard i > start else { throw fail("expected a field name, found '\(chars[i])'") }
        return String(chars[start ..< i])
    }

    mutating func quoted() throws(FilterError) -> String {
        let quote = chars[i], open = i
        i += 1
        var out = ""
        while i < chars.count {
            if chars[i] == "\\", i + 1 < chars.count {
                out.append(chars[i + 1])
                i += 2
                continue
            }
            if chars[i] == quote {
                i += 1
                return out
            }
            out.append(chars[i])
            i += 1
        }
        throw fail("the quote at column \(open + 1) is not closed", at: open + 1)
    }

    /// A quoted string, or a bare run of words up to `and`/`or`, a `)` (or `,` in a list) or the end.
    mutating func value(inList: Bool) throws(FilterError) -> String {
        guard i < chars.count else { throw fail("expected a value") }
        if chars[i] == "\"" || chars[i] == "'" { return try quoted() }
        var words: [String] = []
        while i < chars.count {
            skipSpace()
            guard i < chars.count, chars[i] != ")", !(inList && chars[i] == ","), !(!words.isEmpty && (atKeyword("and") || atKeyword("or"))) else { break }
            let start = i
            while i < chars.count, !chars[i].isWhitespace, chars[i] != ")", !(inList && chars[i] == ",") { i += 1 }
            words.append(String(chars[start ..< i]))
        }
        guard !words.isEmpty else { throw fail("expected a value") }
        return words.joined(separator: " ")
    }

    /// `text` as an expression writes it: bare when it reads back the same, else double-quoted.
    static func quotedIfNeeded(_ text: String, field: Bool = false) -> String {
        let plain = !text.isEmpty && !text.contains { $0.isWhitespace || "(),\"'\\".contains($0) || (field && operatorCharacters.contains($0)) }
            && !["and", "or", "in", "exists"].contains(text.lowercased())
        if plain { return text }
        return "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
