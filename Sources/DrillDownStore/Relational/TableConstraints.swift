/// What a table's definition says beyond its columns' types and NOT NULL: defaults, CHECK
/// constraints and foreign keys (UNIQUE needs no description: the database names the columns
/// when it refuses a duplicate). Read once per level when a mapping is
/// resolved; it shapes the level's fields (``ResolvedLevel/fields``) and names the column when a
/// write breaks a constraint (``ConstraintViolation``).
package struct TableConstraints: Sendable, Equatable {
    /// Column → its `DEFAULT` expression as SQL (`0`, `'draft'`, `CURRENT_TIMESTAMP`, `'x'::text`).
    package var defaults: [String: String] = [:]
    /// The CHECK constraints.
    package var checks: [TableCheck] = []
    /// The foreign keys: columns and the table they refer to.
    package var references: [Reference] = []

    /// A foreign key.
    package struct Reference: Sendable, Equatable {
        package var columns: [String]
        package var table: String

        package init(columns: [String], table: String) {
            self.columns = columns
            self.table = table
        }
    }

    package init(defaults: [String: String] = [:], checks: [TableCheck] = [], references: [Reference] = []) {
        self.defaults = defaults
        self.checks = checks
        self.references = references
    }

    /// The simple conditions on `column`, from every check.
    func rules(for column: String) -> [ColumnRule] {
        checks.flatMap(\.rules).filter { $0.column.caseInsensitiveCompare(column) == .orderedSame }
    }

    /// The default of `column` as people read it: a literal's value (`draft`, `0`), an expression
    /// as written (`CURRENT_TIMESTAMP`); `nil` when there is none, it is NULL, or the database
    /// draws it from a sequence (a key).
    func defaultText(of column: String) -> String? {
        guard let sql = defaults.first(where: { $0.key.caseInsensitiveCompare(column) == .orderedSame })?.value else { return nil }
        var tokens = SQLToken.tokens(sql)
        if let cast = tokens.firstIndex(where: { $0.isSymbol("::") }) { tokens.removeSubrange(cast...) }
        tokens.removeAll { $0.isSymbol("(") || $0.isSymbol(")") }
        if tokens.count == 1, tokens[0].kind == .string || tokens[0].kind == .number { return tokens[0].text }
        if tokens.count == 2, tokens[0].isSymbol("-"), tokens[1].kind == .number { return "-" + tokens[1].text }
        if tokens.count == 1, tokens[0].isKeyword("NULL") { return nil }
        if sql.lowercased().hasPrefix("nextval(") { return nil }
        return sql
    }
}
