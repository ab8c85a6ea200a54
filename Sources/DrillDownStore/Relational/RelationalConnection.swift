import DrillDownCore
import GRDB

/// What a ``RelationalMapping`` needs from a database, on one open connection: queries with `?`
/// parameters whose results come back as GRDB `DatabaseValue`s (the neutral value type of every
/// database here), and the description of the tables and views it may name.
///
/// SQLite (``SQLiteRelationalConnection``) and PostgreSQL (in DrillDownPostgres) implement it, so
/// reading, editing, undo and keyset pagination are written once. SQL is written for both: quoted
/// identifiers, `TRUE`/`FALSE`, `RETURNING`, and the few places the two differ go through
/// ``dialect``.
package protocol RelationalConnection {
    /// How this database's SQL differs.
    var dialect: SQLDialect { get }
    /// The rows `sql` returns, each as its columns' values in order.
    func rows(_ sql: String, _ arguments: [DatabaseValue]) throws -> [[DatabaseValue]]
    /// Runs `sql` for its effect.
    func execute(_ sql: String, _ arguments: [DatabaseValue]) throws
    /// The tables and views a mapping may name, by name.
    func relations() throws -> [(name: String, isView: Bool)]
    /// The columns of the table or view `relation`, in their order.
    func columns(of relation: String, isView: Bool) throws -> [RelationalColumn]
    /// The defaults, CHECK constraints and foreign keys of the table
    /// `relation` (whose columns are `columns`). A write that breaks one throws a
    /// ``ConstraintViolation``.
    func constraints(of relation: String, columns: [RelationalColumn]) throws -> TableConstraints
    /// Creates the history table `drilldown_history` and its indexes when missing, in the open
    /// write transaction (see ``RelationalHistory``).
    func prepareHistory() throws
    /// Writes `record` into `drilldown_history` in the open write transaction, and returns what
    /// reads its number once the transaction has committed (PostgreSQL sends the INSERT without
    /// waiting for its answer, so it travels with the statements that end the step).
    func sendHistory(_ record: HistoryRecord) throws -> () throws -> Int64
}

extension RelationalConnection {
    /// The first column of the first row, if any.
    package func value(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> DatabaseValue? {
        try rows(sql, arguments).first?.first
    }

    /// The first column of the first row as an integer (0 when there is none).
    package func integer(_ sql: String, _ arguments: [DatabaseValue] = []) throws -> Int64 {
        guard let value = try value(sql, arguments) else { return 0 }
        switch value.storage {
        case .int64(let i): return i
        case .double(let d): return Int64(d)
        case .string(let s): return Int64(s) ?? 0
        default: return 0
        }
    }
}
