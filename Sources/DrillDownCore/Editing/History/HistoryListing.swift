import Foundation

/// A page of a history as the CLI's `history --json` and the web's `/api/history` show it:
/// `{"total": N, "entries": [{"id", "user", "time", "instance", "kind", "target", "summary",
/// "differences", "changes", "inverse"}]}`, times in ISO 8601 (UTC, to the second).
public struct HistoryListing: Encodable, Sendable {
    /// One entry: a ``HistoryRecord`` with its ``HistoryRecord/differences``.
    public struct Entry: Encodable, Sendable {
        public var id: Int64
        public var user: String?
        public var time: String
        public var instance: String
        public var kind: String
        public var target: Int64?
        public var summary: String
        public var differences: [HistoryDifference]
        public var changes: [Change]
        public var inverse: [Change]

        /// The entry of `record`.
        public init(_ record: HistoryRecord) {
            (id, user, time, instance) = (record.id, record.user, record.time.formatted(.iso8601), record.instance)
            (kind, target, summary) = (record.kind.rawValue, record.target, record.summary)
            (differences, changes, inverse) = (record.differences, record.changes, record.inverse)
        }
    }

    /// How many records match in all.
    public var total: Int
    /// The page's entries, newest first.
    public var entries: [Entry]

    /// The listing of `page`.
    public init(_ page: HistoryPage) {
        total = page.total
        entries = page.records.map(Entry.init)
    }
}
