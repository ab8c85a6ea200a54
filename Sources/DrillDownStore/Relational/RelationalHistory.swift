import DrillDownCore

/// The audit history of a database edited through its `levels:` mapping, in a table
/// `drilldown_history` of the database itself, created on the first recorded step and written by
/// ``RelationalStore`` in each step's own transaction, so a change to the mapped tables and its
/// record commit together or not at all:
///
/// - SQLite: the table a tree table keeps in its file (read by ``SQLiteHistoryLog``).
/// - PostgreSQL: beside `drilldown_revisions`, with the schema of a tree table's `<table>_history`
///   and a `scope` column naming the mapped tables, so other mappings of the database keep
///   histories of their own (read by `PostgresHistoryLog` in DrillDownPostgres). The record's
///   INSERT is sent without waiting for its answer, so the step still waits once for the
///   statements that end it; the mapped tables' triggers announce the step (`NOTIFY
///   drilldown_levels`), and every instance on the database reads the same records.
enum RelationalHistory {
    /// What writes the record of `changes` once their paths are known, inside the step's
    /// transaction on `db`, and returns what reads the record's number once the transaction has
    /// committed. `summary` is the store's description of the step; the inverse reads `before`,
    /// the rows as they are before the step.
    static func recording(
        _ changes: [Change], _ draft: HistoryDraft, before: any Source, summary: String, db: any RelationalConnection, tableReady: Bool, file: String
    ) throws(EditError) -> (([TreePath]) throws(EditError) -> () throws(EditError) -> Int64)? {
        guard !changes.isEmpty else { return nil }
        if !tableReady {
            do { try db.prepareHistory() } catch { throw EditError("\(file): could not create the history table drilldown_history: \(error)") }
        }
        let recorder = draft.recorder(for: changes, before: before, summary: summary)
        func failure(_ error: any Error) -> EditError { EditError("\(file): could not record the change in the history: \(error)") }
        return { paths throws(EditError) in
            let number: () throws -> Int64
            do { number = try db.sendHistory(recorder(paths)) } catch { throw failure(error) }
            return { () throws(EditError) in
                do { return try number() } catch { throw failure(error) }
            }
        }
    }
}
