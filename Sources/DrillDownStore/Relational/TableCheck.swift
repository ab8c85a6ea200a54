import Foundation

/// One CHECK constraint of a table: its expression, the columns it mentions and the simple
/// conditions (``ColumnRule``) it puts on them. Read from SQLite's `CREATE TABLE` statement
/// (``all(inCreateTable:columns:)``) or PostgreSQL's `pg_get_constraintdef`
/// (``init(name:definition:columns:)``).
package struct TableCheck: Sendable, Equatable {
    /// The constraint's name, when it has one.
    package var name: String?
    /// The expression, as written (SQLite) or as the server shows it (PostgreSQL).
    package var expression: String
    /// The table's columns the expression mentions, in table order.
    package var columns: [String]
    /// What of the expression is simple enough to check before writing; each is a necessary
    /// condition (a top-level `AND` is split, an `OR` is left to the database).
    package var rules: [ColumnRule]

    /// The check `CHECK (expression)` over `tokens[open]` (its `(`) to the matching `)`.
    init?(name: String?, tokens: [SQLToken], open: Int, text: String, columns: [String]) {
        guard open < tokens.count, tokens[open].isSymbol("("), let close = SQLToken.closing(tokens, from: open), close > open + 1 else { return nil }
        let inner = Array(tokens[(open + 1) ..< close])
        let expression = Self.unwrapped(String(text[inner[0].range.lowerBound ..< inner[inner.count - 1].range.upperBound]))
        let mentioned = Set(inner.compactMap { Self.column($0, in: columns)?.lowercased() })
        let (found, complete) = Self.rules(inner, columns: columns)
        self.name = name
        self.expression = expression
        self.columns = columns.filter { mentioned.contains($0.lowercased()) }
        rules = found.map { ColumnRule(column: $0.column, condition: $0.condition, check: expression) }
        self.complete = complete
    }

    /// Whether ``rules`` say all the expression says.
    var complete: Bool

    /// A PostgreSQL check from its definition (`CHECK ((length > 0))`). When its conditions are
    /// all simple, its expression is written back plainly (`genre IN ('Rock', 'Jazz')` rather
    /// than the server's `((genre)::text = ANY ((ARRAY['Rock'::character varying, …])::text[]))`).
    package init?(name: String, definition: String, columns: [String]) {
        let tokens = SQLToken.tokens(definition)
        guard let first = tokens.first, first.isKeyword("CHECK") else { return nil }
        self.init(name: name, tokens: tokens, open: 1, text: definition, columns: columns)
        if complete, !rules.isEmpty {
            expression = rules.map(\.sql).joined(separator: " AND ")
            for i in rules.indices { rules[i].check = expression }
        }
    }

    /// The CHECK clauses of an SQLite `CREATE TABLE` statement, column and table constraints alike.
    static func all(inCreateTable sql: String, columns: [String]) -> [TableCheck] {
        let tokens = SQLToken.tokens(sql)
        var checks: [TableCheck] = []
        for (i, token) in tokens.enumerated() where token.isKeyword("CHECK") {
            let name = i >= 2 && tokens[i - 2].isKeyword("CONSTRAINT") && tokens[i - 1].kind != .symbol ? tokens[i - 1].text : nil
            if let check = TableCheck(name: name, tokens: tokens, open: i + 1, text: sql, columns: columns) { checks.append(check) }
        }
        return checks
    }

    /// Whether the database's account of a failed check (its name, or SQLite's copy of the
    /// expression) is this check.
    func matches(_ reported: String) -> Bool {
        if let name, name.caseInsensitiveCompare(reported) == .orderedSame { return true }
        func squeezed(_ s: String) -> String { Self.unwrapped(s).filter { !$0.isWhitespace }.lowercased() }
        return squeezed(reported) == squeezed(expression)
    }

    // MARK: Parsing

    /// The column `token` names, if it names one.
    static func column(_ token: SQLToken, in columns: [String]) -> String? {
        guard token.kind == .word || token.kind == .identifier else { return nil }
        return columns.first { $0.caseInsensitiveCompare(token.text) == .orderedSame }
    }

    /// `text` without parentheses around all of it.
    static func unwrapped(_ text: String) -> String {
        var text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasPrefix("("), text.hasSuffix(")") {
            let tokens = SQLToken.tokens(text)
            guard SQLToken.closing(tokens, from: 0) == tokens.count - 1 else { break }
            text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return text
    }

    /// Words that end a cast's type name (`x::text = ANY …`).
    static let operatorWords: Set<String> = ["AND", "OR", "NOT", "IN", "BETWEEN", "IS", "ANY", "ALL", "LIKE", "ILIKE"]

    /// The simple conditions of an expression: its top-level `AND`s, each one of
    /// `col op number`, `number op col`, `col IN (…)`, `col = ANY (ARRAY[…])`, `col BETWEEN a AND b`
    /// or `col <> 'text'`. Nothing when the top level has an `OR`.
    static func rules(_ expression: [SQLToken], columns: [String]) -> (rules: [(column: String, condition: ColumnRule.Condition)], complete: Bool) {
        // Casts go: `(genre)::text`, `'Rock'::character varying`, `(0)::numeric`, `ARRAY[…]::text[]`.
        var tokens: [SQLToken] = []
        var i = 0
        while i < expression.count {
            guard expression[i].isSymbol("::") else {
                tokens.append(expression[i])
                i += 1
                continue
            }
            i += 1
            while i < expression.count, expression[i].kind == .word || expression[i].kind == .identifier,
                !operatorWords.contains(expression[i].text.uppercased())
            {
                i += 1
            }
            if i < expression.count, expression[i].isSymbol("("), let close = SQLToken.closing(expression, from: i) { i = close + 1 }
            while i + 1 < expression.count, expression[i].isSymbol("["), expression[i + 1].isSymbol("]") { i += 2 }
        }
        while tokens.count >= 2, tokens[0].isSymbol("("), SQLToken.closing(tokens, from: 0) == tokens.count - 1 {
            tokens = Array(tokens.dropFirst().dropLast())
        }
        // Split at top-level ANDs (not a BETWEEN's).
        var parts: [[SQLToken]] = [[]]
        var depth = 0, between = false
        for token in tokens {
            if token.isSymbol("(") || token.isSymbol("[") { depth += 1 }
            if token.isSymbol(")") || token.isSymbol("]") { depth -= 1 }
            if depth == 0 {
                if token.isKeyword("OR") { return ([], false) }
                if token.isKeyword("BETWEEN") { between = true }
                if token.isKeyword("AND") {
                    if between {
                        between = false
                    } else {
                        parts.append([])
                        continue
                    }
                }
            }
            parts[parts.count - 1].append(token)
        }
        let found = parts.map { rule(of: $0.filter { !["(", ")", "[", "]"].contains($0.kind == .symbol ? $0.text : "") }, columns: columns) }
        return (found.flatMap { $0 }, !found.contains { $0.isEmpty })
    }

    /// The conditions of one conjunct, its brackets dropped.
    static func rule(of tokens: [SQLToken], columns: [String]) -> [(column: String, condition: ColumnRule.Condition)] {
        // Signed numbers as one token.
        var t: [SQLToken] = []
        for token in tokens {
            if token.kind == .number, let last = t.last, last.isSymbol("-") || last.isSymbol("+"),
                t.count == 1 || t[t.count - 2].kind == .symbol || t[t.count - 2].kind == .word && operatorWords.contains(t[t.count - 2].text.uppercased())
            {
                t[t.count - 1] = SQLToken(kind: .number, text: (last.text == "-" ? "-" : "") + token.text, range: last.range.lowerBound ..< token.range.upperBound)
            } else {
                t.append(token)
            }
        }
        func number(_ token: SQLToken) -> Double? {
            token.kind == .number || token.kind == .string ? Double(token.text).flatMap { $0.isFinite ? $0 : nil } : nil
        }
        func literals(_ rest: ArraySlice<SQLToken>) -> [String]? {
            var values: [String] = []
            for (n, token) in rest.enumerated() {
                if n % 2 == 1 {
                    guard token.isSymbol(",") else { return nil }
                } else {
                    guard token.kind == .string || token.kind == .number else { return nil }
                    values.append(token.text)
                }
            }
            return values.isEmpty || rest.count % 2 == 0 ? nil : values
        }
        let comparisons: [String: String] = [">": "<", ">=": "<=", "<": ">", "<=": ">="]
        if t.count == 3, let column = column(t[0], in: columns), t[1].kind == .symbol, comparisons[t[1].text] != nil, let n = number(t[2]) {
            return [(column, .compared(t[1].text, n))]
        }
        if t.count == 3, let n = number(t[0]), t[1].kind == .symbol, let flipped = comparisons[t[1].text], let column = column(t[2], in: columns) {
            return [(column, .compared(flipped, n))]
        }
        if t.count == 3, let column = column(t[0], in: columns), t[1].isSymbol("<>") || t[1].isSymbol("!="), t[2].kind == .string {
            return [(column, .differs(t[2].text))]
        }
        if t.count >= 3, let column = column(t[0], in: columns), t[1].isKeyword("IN"), let values = literals(t[2...]) {
            return [(column, .oneOf(values))]
        }
        if t.count >= 5, let column = column(t[0], in: columns), t[1].isSymbol("=") || t[1].isSymbol("=="), t[2].isKeyword("ANY"), t[3].isKeyword("ARRAY"),
            let values = literals(t[4...])
        {
            return [(column, .oneOf(values))]
        }
        if t.count == 5, let column = column(t[0], in: columns), t[1].isKeyword("BETWEEN"), let lo = number(t[2]), t[3].isKeyword("AND"), let hi = number(t[4]) {
            return [(column, .compared(">=", lo)), (column, .compared("<=", hi))]
        }
        return []
    }
}
