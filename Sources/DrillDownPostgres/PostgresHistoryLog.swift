import DrillDownCore
import Foundation
import NIOCore
import PostgresNIO

/// The audit history of a PostgreSQL tree table, kept in `<table>_history` beside it and written
/// by ``PostgresTreeStore`` in each step's own transaction (the step and its record commit
/// together), so every instance serving the table reads the same history; this log reads it.
///
/// ```sql
/// CREATE TABLE <table>_history (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(),
///     username text, session text, instance text NOT NULL, kind text NOT NULL, target bigint, record text NOT NULL);
/// ```
public struct PostgresHistoryLog: HistoryLog {
    /// The table whose history this is.
    public let table: PostgresTreeTable

    /// The history of `table`.
    public init(table: PostgresTreeTable) { self.table = table }

    /// The history of the table at `location` (connecting when first read).
    public init(_ location: PostgresLocation) throws(PostgresStoreError) { self.table = try PostgresTreeTable(location) }

    public var writtenByStore: Bool { true }

    public func begin(_ records: [HistoryRecord]) throws -> [HistoryRecord] {
        throw EditError("\(table.location.table)_history is written with each step by its store")
    }

    public func finish(_ ids: [Int64], written: Bool) throws {}

    /// Records of `where`-clause `sql` (nothing when the table is not there yet).
    func fetch(_ sql: PostgresQuery) throws -> [HistoryRecord] {
        let logger = table.session.logger
        let name = table.location.table + "_history"
        return try table.session.run { connection in
            let rows: [PostgresRow]
            do {
                rows = try connection.rows(sql, logger)
            } catch {
                // A table no editable store has opened yet has no history.
                let exists = try connection.rows("SELECT to_regclass(\(name)) IS NOT NULL", logger).first?.decode(Bool.self) ?? false
                if exists { throw error }
                return []
            }
            let decoder = HistoryCoding.decoder
            return try rows.map { row in
                let (id, text) = try row.decode((Int64, String).self)
                var record = try decoder.decode(HistoryRecord.self, from: Data(text.utf8))
                record.id = id
                return record
            }
        }
    }

    public func page(touching path: TreePath, offset: Int, limit: Int) throws -> HistoryPage {
        let t = table.location.table
        if path.isRoot {
            let records = try fetch("SELECT id, record FROM \(unescaped: t)_history ORDER BY id DESC LIMIT \(min(limit, Int(Int32.max))) OFFSET \(offset)")
            let logger = table.session.logger
            let total = records.isEmpty && offset == 0 ? 0 : try table.session.run { connection in
                try connection.rows("SELECT count(*) FROM \(unescaped: t)_history", logger).first?.decode(Int.self) ?? 0
            }
            return HistoryPage(records: records, total: total)
        }
        return HistoryPage(try fetch("SELECT id, record FROM \(unescaped: t)_history ORDER BY id DESC").filter { $0.touches(path) }, offset: offset, limit: limit)
    }

    public func record(_ id: Int64) throws -> HistoryRecord? {
        try fetch("SELECT id, record FROM \(unescaped: table.location.table)_history WHERE id = \(id)").first
    }

    public func records(after id: Int64) throws -> [HistoryRecord] {
        try fetch("SELECT id, record FROM \(unescaped: table.location.table)_history WHERE id > \(id) ORDER BY id")
    }

    public func recent(by author: HistoryAuthor, limit: Int) throws -> [HistoryRecord] {
        let t = table.location.table
        if let user = author.user { return try fetch("SELECT id, record FROM \(unescaped: t)_history WHERE username = \(user) ORDER BY id DESC LIMIT \(limit)") }
        guard let session = author.session else { return [] }
        return try fetch("SELECT id, record FROM \(unescaped: t)_history WHERE username IS NULL AND session = \(session) ORDER BY id DESC LIMIT \(limit)")
    }
}

extension PostgresTreeTable {
    /// Creates `<table>_history` when missing.
    func prepareHistory() throws(PostgresStoreError) {
        let table = location.table
        let logger = session.logger
        try session.run { connection in
            try connection.execute(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(table)_history (
                    id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), username text, session text,
                    instance text NOT NULL, kind text NOT NULL, target bigint, record text NOT NULL)
                """), logger)
            // A reader's Undo reads their newest records: by user, or by anonymous session.
            try connection.execute(PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(table)_history_user ON \(table)_history(username, id)"), logger)
            try connection.execute(PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(table)_history_session ON \(table)_history(session, id)"), logger)
        }
    }

    /// Sends the INSERT of `record` inside the caller's transaction, without waiting for its
    /// answer (see ``PostgresTreeDatabase/transaction(key:paths:_:)``).
    func sendHistory(_ record: HistoryRecord, _ connection: PostgresConnection) throws -> EventLoopFuture<PostgresQueryResult> {
        let json = String(decoding: try HistoryCoding.encoder.encode(record), as: UTF8.self)
        return connection.query(
            """
            INSERT INTO \(unescaped: location.table)_history(username, session, instance, kind, target, record)
            VALUES (\(record.user), \(record.session), \(record.instance), \(record.kind.rawValue), \(record.target), \(json))
            """, logger: session.logger)
    }
}

extension PostgresTreeStore {
    /// The table's audit history (``PostgresHistoryLog``).
    public var historyLog: PostgresHistoryLog { PostgresHistoryLog(table: table) }
}
