import GRDB

/// SQL for keyset pagination over a level's order terms (the key last, so positions are total):
/// the rows after (or before) a given row, NULL-aware as SQLite sorts (NULL first ascending,
/// last descending).
///
/// ```swift
/// Keyset.comparison([track, id], [3, 17], after: true)
/// // ("track" >= ? AND ("track" > ? OR ("track" IS ? AND "id" > ?)), [3, 3, 3, 17])
/// ```
enum Keyset {
    /// `ORDER BY` terms, or their mirror image to read a level from its end.
    static func orderBy(_ terms: [ResolvedLevel.OrderTerm], reversed: Bool) -> String {
        terms.map { ResolvedLevel.quoted($0.column) + ($0.descending != reversed ? " DESC" : "") }.joined(separator: ", ")
    }

    /// A condition true for the rows strictly after (`after`) or before the row whose order
    /// values are `values`, in the order `terms` give.
    static func comparison(
        _ terms: [ResolvedLevel.OrderTerm], _ values: [DatabaseValue], after: Bool
    ) -> (sql: String, arguments: [DatabaseValue]) {
        var sql = ""
        var arguments: [DatabaseValue] = []
        var closing = ""
        for (i, term) in terms.enumerated() where i < values.count {
            let column = ResolvedLevel.quoted(term.column)
            let value = values[i]
            // Later in ascending SQLite order (NULL smallest) when the direction and the question agree.
            let greater = term.descending != after
            let strict: String
            switch (greater, value.isNull) {
            case (true, true): strict = "\(column) IS NOT NULL"
            case (true, false): strict = "\(column) > ?"
            case (false, true): strict = "0"
            case (false, false): strict = "(\(column) < ? OR \(column) IS NULL)"
            }
            let strictArguments: [DatabaseValue] = value.isNull ? [] : [value]
            if i == terms.count - 1 || i == values.count - 1 {
                sql += strict
                arguments += strictArguments
            } else {
                if i == 0, greater, !value.isNull {
                    // A range the index can seek to before the exact comparison.
                    sql += "\(column) >= ? AND "
                    arguments.append(value)
                }
                sql += "(\(strict) OR (\(column) IS ? AND "
                arguments += strictArguments + [value]
                closing += "))"
            }
        }
        return ("(" + sql + closing + ")", arguments)
    }
}
