import DrillDownCore
import GRDB

/// A ``BoundFilter`` as an SQL condition: every value a bound parameter (`?`), never text put
/// into the SQL; column names come from the database's own description of the table, quoted.
/// The comparisons are the documents' (``BoundFilter/Test/matches(_:)``): numbers numerically,
/// text as written, a day's date matching every time of that day, `~` containing the folded
/// value (SQLite through the `drilldown_fold` function, PostgreSQL through `lower` and `translate`).
package enum FilterSQL {
    /// The SQLite function folding text as ``BoundFilter/fold(_:)`` does.
    package static let foldFunction = DatabaseFunction("drilldown_fold", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map(BoundFilter.fold)
    }

    /// The condition `filter` makes, `column` giving each test's column expression (quoted);
    /// `nil` when a test names no column (the caller then scans).
    package static func condition(
        _ filter: BoundFilter, dialect: SQLDialect, column: (BoundFilter.Test) -> String?
    ) -> (sql: String, arguments: [DatabaseValue])? {
        var arguments: [DatabaseValue] = []
        func sql(_ node: BoundFilter.Node) -> String? {
            switch node {
            case .and(let parts), .or(let parts):
                var pieces: [String] = []
                for part in parts {
                    guard let piece = sql(part) else { return nil }
                    pieces.append(piece)
                }
                if case .and = node { return "(" + pieces.joined(separator: " AND ") + ")" }
                return "(" + pieces.joined(separator: " OR ") + ")"
            case .test(let test):
                guard let col = column(test) else { return nil }
                return self.sql(test, col, dialect, &arguments)
            }
        }
        guard let text = sql(filter.root) else { return nil }
        return (text, arguments)
    }

    /// Accented letters and their plain forms, for PostgreSQL's `translate` (no `unaccent` needed).
    static let accented = "àáâãäåāăąçćčďèéêëēėęěìíîïīįłñńňòóôõöøōőŕřśšşťùúûüūůűųýÿźżž"
    static let plain = "aaaaaaaaacccdeeeeeeeeiiiiiilnnnoooooooorrssstuuuuuuuuyyzzz"

    static func sql(_ test: BoundFilter.Test, _ column: String, _ dialect: SQLDialect, _ arguments: inout [DatabaseValue]) -> String {
        let text = "CAST(\(column) AS TEXT)"
        switch test.op {
        case .exists:
            return "\(column) IS NOT NULL"
        case .contains:
            let needle = test.operands.first?.text ?? ""
            let pattern = "%" + needle.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_") + "%"
            arguments.append(pattern.databaseValue)
            let folded = dialect == .sqlite ? "drilldown_fold(\(column))" : "translate(lower(\(text)), '\(accented)', '\(plain)')"
            return "\(folded) LIKE ? ESCAPE '\\'"
        case .oneOf:
            let parts = test.operands.map { comparison(.equal, $0, test, column, dialect, &arguments) }
            return "(" + (parts.isEmpty ? "FALSE" : parts.joined(separator: " OR ")) + ")"
        default:
            guard let operand = test.operands.first else { return "FALSE" }
            return comparison(test.op, operand, test, column, dialect, &arguments)
        }
    }

    static func comparison(
        _ op: FilterOperator, _ operand: BoundFilter.Operand, _ test: BoundFilter.Test, _ column: String, _ dialect: SQLDialect,
        _ arguments: inout [DatabaseValue]
    ) -> String {
        let text = "CAST(\(column) AS TEXT)"
        switch operand {
        case .number(let n):
            arguments.append(n.databaseValue)
            let value: String
            if dialect == .postgres {
                value = test.type == .boolean ? "CAST(CAST(\(column) AS integer) AS double precision)" : "CAST(\(column) AS double precision)"
            } else {
                value = column
            }
            return "\(value) \(op.rawValue) ?"
        case .text(let t):
            arguments.append(t.databaseValue)
            return "\(text) \(op.rawValue) ?"
        case .date(let d):
            // The documents' rule: a value starting with the date is the same day.
            let prefix = "substr(\(text), 1, \(d.count)) = ?"
            arguments.append(d.databaseValue)
            switch op {
            case .equal: return prefix
            case .notEqual: return "\(column) IS NOT NULL AND NOT (\(prefix))"
            default:
                arguments.append(d.databaseValue)
                let strict = op == .less || op == .lessOrEqual ? "<" : ">"
                let inclusive = op == .lessOrEqual || op == .greaterOrEqual
                return inclusive ? "(\(prefix) OR \(text) \(strict) ?)" : "(NOT (\(prefix)) AND \(text) \(strict) ?)"
            }
        }
    }
}
