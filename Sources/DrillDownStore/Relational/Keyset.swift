import GRDB

/// SQL for keyset pagination over a level's order terms (the key last, so positions are total):
/// the rows after (or before) a given row, NULL-aware as the database sorts (SQLite: NULL first
/// ascending, last descending; PostgreSQL the other way round), so its indexes serve the query.
///
/// ```swift
/// Keyset.comparison([track, id], [3, 17], after: true, dialect: .sqlite)
/// // ("track" >= ? AND ("track" > ? OR ("track" IS ? AND "id" > ?)), [3, 3, 3, 17])
/// ```
enum Keyset {
    /// `ORDER BY` terms, or their mirror image to read a level from its end.
    static func orderBy(_ terms: [ResolvedLevel.OrderTerm], reversed: Bool) -> String {
        terms.map { $0.expression + ($0.descending != reversed ? " DESC" : "") }.joined(separator: ", ")
    }

    /// A condition true for the rows strictly after (`after`) or before the row whose order
    /// values are `values`, in the order `terms` give.
    static func comparison(
        _ terms: [ResolvedLevel.OrderTerm], _ values: [DatabaseValue], after: Bool, dialect: SQLDialect
    ) -> (sql: String, arguments: [DatabaseValue]) {
        var sql = ""
        var arguments: [DatabaseValue] = []
        var closing = ""
        for (i, term) in terms.enumerated() where i < values.count {
            let column = term.expression
            let value = values[i]
            // Later in ascending order when the direction and the question agree.
            let greater = term.descending != after
            // Whether the rows on that side include the NULLs (and NULL has nothing beyond it).
            let towardsNull = greater == dialect.nullsLast
            let strict: String
            switch (towardsNull, value.isNull) {
            case (true, true): strict = "FALSE"
            case (true, false): strict = "(\(column) \(greater ? ">" : "<") ? OR \(column) IS NULL)"
            case (false, true): strict = "\(column) IS NOT NULL"
            case (false, false): strict = "\(column) \(greater ? ">" : "<") ?"
            }
            let strictArguments: [DatabaseValue] = value.isNull ? [] : [value]
            if i == terms.count - 1 || i == values.count - 1 {
                sql += strict
                arguments += strictArguments
            } else {
                if i == 0, !towardsNull, !value.isNull {
                    // A range the index can seek to before the exact comparison.
                    sql += "\(column) \(greater ? ">=" : "<=") ? AND "
                    arguments.append(value)
                }
                sql += "(\(strict) OR (\(column) \(dialect.isSame) ? AND "
                arguments += strictArguments + [value]
                closing += "))"
            }
        }
        return ("(" + sql + closing + ")", arguments)
    }
}
