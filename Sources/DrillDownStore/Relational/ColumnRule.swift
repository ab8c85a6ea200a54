import GRDB

/// A simple condition a CHECK constraint puts on one column (`length > 0`,
/// `genre IN ('Rock', 'Jazz')`, `rating BETWEEN 0 AND 5`, `name <> ''`): a form shows it (bounds,
/// choices) and the store checks it before writing, so a refusal names the column and what it
/// requires instead of passing on the database's message.
package struct ColumnRule: Sendable, Equatable {
    /// What the column's value must be.
    package enum Condition: Sendable, Equatable {
        /// One of these values.
        case oneOf([String])
        /// Compared with a number: `>`, `>=`, `<` or `<=`.
        case compared(String, Double)
        /// Anything but this value (`<> ''`: not empty).
        case differs(String)
    }

    /// The column, as the table spells it.
    package var column: String
    package var condition: Condition
    /// The CHECK expression it comes from, for messages.
    package var check: String

    /// What the value must be, for messages: "greater than 0", "one of Rock, Jazz".
    package var requirement: String {
        switch condition {
        case .oneOf(let values): "one of \(values.joined(separator: ", "))"
        case .compared(let op, let n):
            switch op {
            case ">": "greater than \(Self.text(n))"
            case ">=": "at least \(Self.text(n))"
            case "<": "less than \(Self.text(n))"
            default: "at most \(Self.text(n))"
            }
        case .differs(let value): value.isEmpty ? "not empty" : "other than '\(value)'"
        }
    }

    /// The condition as SQL: `length > 0`, `genre IN ('Rock', 'Jazz')`.
    var sql: String {
        let column = column.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } ? column : ResolvedLevel.quoted(column)
        func literal(_ value: String) -> String { Double(value) != nil ? value : "'" + value.replacingOccurrences(of: "'", with: "''") + "'" }
        return switch condition {
        case .oneOf(let values): "\(column) IN (\(values.map(literal).joined(separator: ", ")))"
        case .compared(let op, let n): "\(column) \(op) \(Self.text(n))"
        case .differs(let value): "\(column) <> \(literal(value))"
        }
    }

    /// Whether `value` (as it would be written) meets the condition; NULL does, as in SQL, and so
    /// does a value the condition cannot compare (the database then decides).
    package func admits(_ value: DatabaseValue) -> Bool {
        if value.isNull { return true }
        let number: Double? =
            switch value.storage {
            case .int64(let i): Double(i)
            case .double(let d): d
            case .string(let s): Double(s)
            default: nil
            }
        switch condition {
        case .oneOf(let values):
            let text = ColumnValue.text(value)
            return values.contains { $0 == text || (number != nil && Double($0) == number) }
        case .compared(let op, let n):
            guard let number else { return true }
            switch op {
            case ">": return number > n
            case ">=": return number >= n
            case "<": return number < n
            default: return number <= n
            }
        case .differs(let other):
            return ColumnValue.text(value) != other
        }
    }

    /// The bounds an integer-valued field takes from the rule (`> 0` is at least 1).
    var integerBounds: (min: Double?, max: Double?) {
        guard case .compared(let op, let n) = condition else { return (nil, nil) }
        switch op {
        case ">": return (n.rounded(.down) + 1, nil)
        case ">=": return (n.rounded(.up), nil)
        case "<": return (nil, n.rounded(.up) - 1)
        default: return (nil, n.rounded(.down))
        }
    }

    /// The bounds a number field takes from the rule (inclusive ones only).
    var numberBounds: (min: Double?, max: Double?) {
        guard case .compared(let op, let n) = condition else { return (nil, nil) }
        switch op {
        case ">=": return (n, nil)
        case "<=": return (nil, n)
        default: return (nil, nil)
        }
    }

    static func text(_ n: Double) -> String {
        n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
    }
}
