import DrillDownCore
import Foundation
import NIOCore
import PostgresNIO

/// The audit history of data in PostgreSQL, written by its store in each step's own transaction
/// (the step and its record commit together), so every instance serving the data reads the same
/// history; this log reads it. A tree table's is `<table>_history` beside it (written by
/// ``PostgresTreeStore``); tables read through a `levels:` mapping keep theirs in
/// `drilldown_history`, beside `drilldown_revisions` (written by their
/// ``DrillDownStore/RelationalStore``), with one more column, `scope`: the mapped tables, so
/// mappings of other tables in the database keep histories of their own there.
///
/// ```sql
/// CREATE TABLE <table>_history (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(),
///     username text, session text, instance text NOT NULL, kind text NOT NULL, target bigint, record text NOT NULL);
/// CREATE TABLE drilldown_history (… the same columns …, scope text NOT NULL);   -- scope: 'albums,artists,songs'
/// ```
public struct PostgresHistoryLog: HistoryLog {
    /// The history table's name: `<table>_history` or `drilldown_history`.
    public let name: String
    /// The mapped tables whose records a `drilldown_history` log reads (``scope(of:)``); `nil` for
    /// a tree table's.
    public let scope: String?
    /// Where the log reads.
    let session: PostgresSession

    /// The history table of tables read through a `levels:` mapping.
    public static let levelsTable = "drilldown_history"

    /// The history of `table`.
    public init(table: PostgresTreeTable) {
        name = table.location.table + "_history"
        scope = nil
        session = table.session
    }

    /// The history of the table at `location` (connecting when first read).
    public init(_ location: PostgresLocation) throws(PostgresStoreError) { self.init(table: try PostgresTreeTable(location)) }

    /// The history of the tables `levels` reads (`drilldown_history`).
    public init(levels: PostgresLevels) {
        name = Self.levelsTable
        scope = Self.scope(of: levels.database.tables)
        session = levels.database.reads
    }

    /// The `scope` of the steps of a mapping of `tables` (sorted, without repeats).
    static func scope(of tables: [String]) -> String { tables.joined(separator: ",") }

    /// The condition that picks this log's records.
    var mine: String { scope.map { "scope = '" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "TRUE" }

    public var writtenByStore: Bool { true }

    public func begin(_ records: [HistoryRecord]) throws -> [HistoryRecord] {
        throw EditError("\(name) is written with each step by its store")
    }

    public func finish(_ ids: [Int64], written: Bool) throws {}

    /// Records of `where`-clause `sql` (nothing when the table is not there yet).
    func fetch(_ sql: PostgresQuery) throws -> [HistoryRecord] {
        let logger = session.logger
        let name = name
        return try session.run { connection in
            let rows: [PostgresRow]
            do {
                rows = try connection.rows(sql, logger)
            } catch {
                // Data no editable store has written yet has no history.
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
        if path.isRoot {
            let records = try fetch("SELECT id, record FROM \(unescaped: name) WHERE \(unescaped: mine) ORDER BY id DESC LIMIT \(min(limit, Int(Int32.max))) OFFSET \(offset)")
            let logger = session.logger
            let name = name, mine = mine
            let total = records.isEmpty && offset == 0 ? 0 : try session.run { connection in
                try connection.rows("SELECT count(*) FROM \(unescaped: name) WHERE \(unescaped: mine)", logger).first?.decode(Int.self) ?? 0
            }
            return HistoryPage(records: records, total: total)
        }
        return HistoryPage(try fetch("SELECT id, record FROM \(unescaped: name) WHERE \(unescaped: mine) ORDER BY id DESC").filter { $0.touches(path) }, offset: offset, limit: limit)
    }

    public func record(_ id: Int64) throws -> HistoryRecord? {
        try fetch("SELECT id, record FROM \(unescaped: name) WHERE \(unescaped: mine) AND id = \(id)").first
    }

    public func records(after id: Int64) throws -> [HistoryRecord] {
        try fetch("SELECT id, record FROM \(unescaped: name) WHERE \(unescaped: mine) AND id > \(id) ORDER BY id")
    }

    public func records(after id: Int64, limit: Int) throws -> [HistoryRecord] {
        try fetch("SELECT id, record FROM \(unescaped: name) WHERE \(unescaped: mine) AND id > \(id) ORDER BY id LIMIT \(limit)")
    }

    public func recent(by author: HistoryAuthor, limit: Int) throws -> [HistoryRecord] {
        if let user = author.user { return try fetch("SELECT id, record FROM \(unescaped: name) WHERE \(unescaped: mine) AND username = \(user) ORDER BY id DESC LIMIT \(limit)") }
        guard let session = author.session else { return [] }
        return try fetch("SELECT id, record FROM \(unescaped: name) WHERE \(unescaped: mine) AND username IS NULL AND session = \(session) ORDER BY id DESC LIMIT \(limit)")
    }

    /// The statements that create the history table `name` and its indexes when missing; with
    /// `scoped`, the `scope` column too, first in each index.
    static func creating(_ name: String, scoped: Bool = false) -> [PostgresQuery] {
        let (column, key) = scoped ? (", scope text NOT NULL", "scope, ") : ("", "")
        var statements = [
            PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(name) (
                    id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT now(), username text, session text,
                    instance text NOT NULL, kind text NOT NULL, target bigint, record text NOT NULL\(column))
                """),
            // A reader's Undo reads their newest records: by user, or by anonymous session.
            PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(name)_user ON \(name)(\(key)username, id)"),
            PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(name)_session ON \(name)(\(key)session, id)"),
        ]
        if scoped { statements.append(PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(name)_scope ON \(name)(scope, id)")) }
        return statements
    }

    /// The INSERT of `record` into the history table `name` (with its `scope`, into
    /// `drilldown_history`), answering the record's number.
    static func inserting(_ record: HistoryRecord, into name: String, scope: String? = nil) throws -> PostgresQuery {
        let json = String(decoding: try HistoryCoding.encoder.encode(record), as: UTF8.self)
        guard let scope else {
            return """
                INSERT INTO \(unescaped: name)(username, session, instance, kind, target, record)
                VALUES (\(record.user), \(record.session), \(record.instance), \(record.kind.rawValue), \(record.target), \(json)) RETURNING id
                """
        }
        return """
            INSERT INTO \(unescaped: name)(username, session, instance, kind, target, record, scope)
            VALUES (\(record.user), \(record.session), \(record.instance), \(record.kind.rawValue), \(record.target), \(json), \(scope)) RETURNING id
            """
    }
}

extension PostgresTreeTable {
    /// Creates `<table>_history` when missing.
    func prepareHistory() throws(PostgresStoreError) {
        let logger = session.logger
        let name = location.table + "_history"
        try session.run { connection in
            for statement in PostgresHistoryLog.creating(name) { try connection.execute(statement, logger) }
        }
    }

    /// Sends the INSERT of `record` inside the caller's transaction, without waiting for its
    /// answer (see ``PostgresTreeDatabase/transaction(key:paths:_:)``).
    func sendHistory(_ record: HistoryRecord, _ connection: PostgresConnection) throws -> EventLoopFuture<PostgresQueryResult> {
        connection.query(try PostgresHistoryLog.inserting(record, into: location.table + "_history"), logger: session.logger)
    }
}

extension PostgresTreeStore {
    /// The table's audit history (``PostgresHistoryLog``).
    public var historyLog: PostgresHistoryLog { PostgresHistoryLog(table: table) }
}
