import DrillDownCore
import DrillDownFormats
import DrillDownPostgres
import DrillDownStore

extension OpenedData {
    /// Where the data set's audit history is kept: a document file's sidecar journal
    /// (`FILE.drilldown-history`: see ``DocumentJournal``), an SQLite tree table's
    /// `drilldown_history` table (also kept for SQLite tables read through `levels:`), a PostgreSQL
    /// tree table's `<table>_history`, the `drilldown_history` table of PostgreSQL tables read
    /// through `levels:`; `nil` for data that keeps none (standard input).
    ///
    /// ```swift
    /// let model = try data.model()
    /// if let log = try data.historyLog() { await model.keepHistory(in: log) }
    /// ```
    public func historyLog() throws(OpenError) -> (any HistoryLog)? {
        switch database {
        case nil:
            guard documentFile != nil else { return nil }
            do { return try DocumentJournal(document: file) } catch { throw OpenError(file, "\(file): \(error)") }
        case .treeTable(let table):
            do { return try SQLiteHistoryLog(path: table.path) } catch { throw OpenError(file, error.description) }
        case .relational:
            // The mapped tables' history, in the same database file (RelationalStore writes it).
            do { return try SQLiteHistoryLog(path: file) } catch { throw OpenError(file, error.description) }
        case .postgres(let table):
            do { return try PostgresHistoryLog(table.location) } catch { throw OpenError(file, error.description) }
        case .postgresLevels(let levels):
            // The mapped tables' history, in the same database (RelationalStore writes it).
            return PostgresHistoryLog(levels: levels)
        }
    }
}
