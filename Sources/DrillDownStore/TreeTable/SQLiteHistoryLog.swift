import DrillDownCore
import Foundation
import GRDB

/// The audit history of an SQLite tree table, kept in the file's `drilldown_history` table and
/// written by ``TreeTableStore`` in each step's own transaction (so a step and its record are
/// committed together or not at all); this log reads it.
///
/// ```sql
/// CREATE TABLE drilldown_history(id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, user TEXT,
///     session TEXT, instance TEXT NOT NULL, kind TEXT NOT NULL, target INTEGER, record TEXT NOT NULL);  -- record: the HistoryRecord as JSON
/// ```
public struct SQLiteHistoryLog: HistoryLog {
    /// The database file.
    public let path: String
    let database: DatabaseQueue

    /// Reads the history of the tree table in the SQLite file at `path`.
    public init(path: String) throws(StoreError) {
        self.path = path
        do {
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(file: path, error)
        }
    }

    public var writtenByStore: Bool { true }

    static let createTable = """
        CREATE TABLE IF NOT EXISTS drilldown_history(id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, user TEXT, session TEXT, \
        instance TEXT NOT NULL, kind TEXT NOT NULL, target INTEGER, record TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS drilldown_history_user ON drilldown_history(user, id);
        CREATE INDEX IF NOT EXISTS drilldown_history_session ON drilldown_history(session, id)
        """

    static let insertRecord = "INSERT INTO drilldown_history(at, user, session, instance, kind, target, record) VALUES (?, ?, ?, ?, ?, ?, ?)"

    /// The values of ``insertRecord`` for `record`.
    static func values(of record: HistoryRecord) throws -> [DatabaseValue] {
        [
            record.time.formatted(.iso8601).databaseValue, record.user.databaseValue, record.session.databaseValue,
            record.instance.databaseValue, record.kind.rawValue.databaseValue, record.target.databaseValue,
            String(decoding: try HistoryCoding.encoder.encode(record), as: UTF8.self).databaseValue,
        ]
    }

    /// Inserts `record` in the open transaction `db`.
    static func insert(_ record: HistoryRecord, into db: Database) throws {
        try db.execute(sql: insertRecord, arguments: StatementArguments(try values(of: record)))
    }

    /// The store writes the records; a log appended to directly is a mistake.
    public func begin(_ records: [HistoryRecord]) throws -> [HistoryRecord] {
        throw EditError("\(path): the history table is written with each step by its store")
    }

    public func finish(_ ids: [Int64], written: Bool) throws {}

    /// Whether the history table is there, asked of the file each time: the store creates it with
    /// its first step, on a connection of its own, and GRDB's `tableExists` would go on answering
    /// from this connection's schema cache what it found before (a log read before the first
    /// step then never saw a record).
    static func tableExists(_ db: Database) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'drilldown_history'") ?? false
    }

    /// Reads rows of `sql` as records (nothing when the table is not there yet).
    func fetch(_ sql: String, _ arguments: StatementArguments = []) throws -> [HistoryRecord] {
        try database.read { db in
            guard try Self.tableExists(db) else { return [] }
            return try Row.fetchAll(db, sql: "SELECT id, record FROM drilldown_history " + sql, arguments: arguments).map { row in
                var record = try HistoryCoding.decoder.decode(HistoryRecord.self, from: Data((row[1] as String).utf8))
                record.id = row[0]
                return record
            }
        }
    }

    public func page(touching path: TreePath, offset: Int, limit: Int) throws -> HistoryPage {
        if path.isRoot {
            let total = try database.read { db in try Self.tableExists(db) ? try Int.fetchOne(db, sql: "SELECT count(*) FROM drilldown_history") ?? 0 : 0 }
            return HistoryPage(records: try fetch("ORDER BY id DESC LIMIT ? OFFSET ?", [min(limit, Int(Int32.max)), offset]), total: total)
        }
        return HistoryPage(try fetch("ORDER BY id DESC").filter { $0.touches(path) }, offset: offset, limit: limit)
    }

    public func record(_ id: Int64) throws -> HistoryRecord? { try fetch("WHERE id = ?", [id]).first }

    public func records(after id: Int64) throws -> [HistoryRecord] { try fetch("WHERE id > ? ORDER BY id", [id]) }

    public func records(after id: Int64, limit: Int) throws -> [HistoryRecord] { try fetch("WHERE id > ? ORDER BY id LIMIT ?", [id, limit]) }

    public func recent(by author: HistoryAuthor, limit: Int) throws -> [HistoryRecord] {
        if let user = author.user { return try fetch("WHERE user = ? ORDER BY id DESC LIMIT ?", [user, limit]) }
        guard let session = author.session else { return [] }
        return try fetch("WHERE user IS NULL AND session = ? ORDER BY id DESC LIMIT ?", [session, limit])
    }
}
