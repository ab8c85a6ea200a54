import DrillDownCore
import GRDB

/// The audit history of an SQLite database edited through its `levels:` mapping: the same
/// `drilldown_history` table a tree table keeps (read by ``SQLiteHistoryLog``), created in the
/// database on its first recorded step and written by ``RelationalStore`` in each step's own
/// transaction, so a change to the mapped tables and its record commit together or not at all.
/// PostgreSQL databases read through `levels:` keep no history yet.
enum RelationalHistory {
    /// What writes the record of `changes` once their paths are known, inside the step's
    /// transaction on `db`, and returns the record's number (`nil` on a database that keeps no
    /// history). `summary` is the store's description of the step; the inverse reads `before`, the
    /// rows as they are before the step.
    static func recording(
        _ changes: [Change], _ draft: HistoryDraft, before: any Source, summary: String, db: any RelationalConnection, tableReady: Bool, file: String
    ) throws(EditError) -> (([TreePath]) throws(EditError) -> Int64)? {
        guard db.dialect == .sqlite, !changes.isEmpty else { return nil }
        if !tableReady {
            do {
                for statement in SQLiteHistoryLog.createTable.split(separator: ";") { try db.execute(String(statement), []) }
            } catch {
                throw EditError("\(file): could not create the history table drilldown_history: \(error)")
            }
        }
        let recorder = draft.recorder(for: changes, before: before, summary: summary)
        return { paths throws(EditError) in
            do {
                try db.execute(SQLiteHistoryLog.insertRecord, try SQLiteHistoryLog.values(of: recorder(paths)))
                return try db.integer("SELECT last_insert_rowid()")
            } catch {
                throw EditError("\(file): could not record the change in the history: \(error)")
            }
        }
    }
}
