import DrillDownCore
import DrillDownFormats
import DrillDownStore

extension OpenedData {
    /// Where the data set's audit history is kept: a document file's sidecar journal
    /// (`FILE.drilldown-history`: see ``DocumentJournal``); `nil` for data that keeps none
    /// (standard input, a relational database read through `levels:`).
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
        default:
            return nil
        }
    }
}
