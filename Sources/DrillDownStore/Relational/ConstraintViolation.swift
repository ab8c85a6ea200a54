import DrillDownCore
import Foundation
import GRDB

/// A write the database refused because it breaks a constraint, as the database reported it
/// (SQLite's extended result code and message, PostgreSQL's SQLSTATE class 23 fields). The
/// writer turns it into an ``EditError`` naming the column and what it requires
/// (``editError(table:constraints:at:)``); the database's own message is never shown.
package struct ConstraintViolation: Error, Sendable, CustomStringConvertible {
    /// Which kind of constraint.
    package enum Kind: Sendable {
        case notNull, check, unique, foreignKey
    }

    package var kind: Kind
    /// The columns the database named, when it named them.
    package var columns: [String]
    /// The constraint's name, or (SQLite, for an unnamed CHECK) its expression.
    package var constraint: String?
    /// (PostgreSQL, a foreign key) the table whose rows still refer to the row deleted or rekeyed.
    package var referencedBy: String?

    package init(_ kind: Kind, columns: [String] = [], constraint: String? = nil, referencedBy: String? = nil) {
        self.kind = kind
        self.columns = columns
        self.constraint = constraint
        self.referencedBy = referencedBy
    }

    /// SQLite's account of a failed constraint (`CHECK constraint failed: length > 0`,
    /// `NOT NULL constraint failed: songs.length`, `UNIQUE constraint failed: songs.a, songs.b`),
    /// or `nil` when `error` is not one of these four kinds.
    package init?(sqlite error: any Error) {
        guard let error = error as? DatabaseError, error.resultCode == .SQLITE_CONSTRAINT else { return nil }
        let message = error.message ?? ""
        let detail = message.range(of: "constraint failed: ").map { String(message[$0.upperBound...]) }
        // `table.column` names, comma-separated.
        let columns = detail.map { $0.split(separator: ",").map { String($0.split(separator: ".").last ?? $0).trimmingCharacters(in: .whitespaces) } } ?? []
        switch error.extendedResultCode {
        case .SQLITE_CONSTRAINT_NOTNULL: self.init(.notNull, columns: columns)
        case .SQLITE_CONSTRAINT_CHECK: self.init(.check, constraint: detail)
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY: self.init(.unique, columns: columns)
        case .SQLITE_CONSTRAINT_FOREIGNKEY: self.init(.foreignKey)
        default: return nil  // a trigger's RAISE says what its author wrote: it is passed on as it is
        }
    }

    package var description: String { "a \(kindName) constraint refused the change" }

    var kindName: String {
        switch kind {
        case .notNull: "NOT NULL"
        case .check: "CHECK"
        case .unique: "UNIQUE"
        case .foreignKey: "FOREIGN KEY"
        }
    }

    /// The refusal as people read it: the column (a form's field) and what it requires.
    package func editError(table: String, constraints: TableConstraints, at path: TreePath?) -> EditError {
        let names = columns.map { "'\($0)'" }.joined(separator: " and ")
        let done = "; nothing was changed"
        switch kind {
        case .notNull where !columns.isEmpty:
            return EditError("\(names) is required (NOT NULL)\(done)", at: path, field: columns[0])
        case .check:
            guard let reported = constraint, let check = constraints.checks.first(where: { $0.matches(reported) }) else {
                return EditError("a CHECK constraint of table '\(table)' refused the row\(constraint.map { " (\($0))" } ?? "")\(done)", at: path)
            }
            let field = check.columns.first
            let columns = check.columns.map { "'\($0)'" }.joined(separator: " and ")
            let subject = columns.isEmpty ? "the row" : columns
            if !check.rules.isEmpty, Set(check.rules.map { $0.column.lowercased() }).count == 1 {
                return EditError("\(subject) must be \(check.rules.map(\.requirement).joined(separator: " and ")) (CHECK \(check.expression))\(done)", at: path, field: field)
            }
            return EditError("\(subject) must meet CHECK \(check.expression)\(done)", at: path, field: field)
        case .unique where !columns.isEmpty:
            let which = columns.count == 1 ? "must be unique" : "must be unique together"
            return EditError("\(names) \(which): another row of '\(table)' has the same \(columns.count == 1 ? "value" : "values")\(done)", at: path, field: columns[0])
        case .foreignKey:
            if let other = referencedBy {
                return EditError("rows of table '\(other)' still refer to this row (FOREIGN KEY)\(done)", at: path)
            }
            var columns = self.columns
            if columns.isEmpty, constraints.references.count == 1 { columns = constraints.references[0].columns }
            guard !columns.isEmpty else {
                return EditError("a FOREIGN KEY of table '\(table)' refused the change: a column refers to a row that does not exist, or other rows still refer to this one\(done)", at: path)
            }
            let target = constraints.references.first { Set($0.columns.map { $0.lowercased() }) == Set(columns.map { $0.lowercased() }) }?.table
            let names = columns.map { "'\($0)'" }.joined(separator: " and ")
            return EditError("\(names) must refer to an existing row\(target.map { " of '\($0)'" } ?? "") (FOREIGN KEY)\(done)", at: path, field: columns[0])
        default:
            return EditError("a \(kindName) constraint of table '\(table)' refused the change\(done)", at: path)
        }
    }
}
