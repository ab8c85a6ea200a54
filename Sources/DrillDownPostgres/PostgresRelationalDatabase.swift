import DrillDownCore
import DrillDownStore
import GRDB
import PostgresNIO

/// The ``DrillDownStore/RelationalWritableDatabase`` behind ``PostgresLevels``: one session for
/// reads, one for write transactions, and the revisions of the mapped tables as the version.
struct PostgresRelationalDatabase: RelationalWritableDatabase {
    let location: PostgresLocation
    let reads: PostgresSession
    let writes: PostgresSession
    /// The mapped tables (not views), sorted: their revision rows are locked in this order.
    let tables: [String]
    let listener: PostgresListener?
    /// When ``refreshDue()`` last said yes, and what the listener had heard then (nothing yet: its first news is due).
    let polling = RefreshSchedule(heard: .init(generation: -1, heard: -1))
    /// How often a refresh asks the database even when no notification came.
    static let pollInterval: Duration = .seconds(2)

    /// Reads on the read session. The caller's own errors (a mapping that does not fit) come out
    /// as they are; the server's as a ``DrillDownStore/StoreError`` naming the database.
    func read<T>(_ body: (any RelationalConnection) throws -> T) throws -> T {
        let logger = reads.logger
        var own: (any Error)?
        do {
            return try reads.run { connection in
                do { return try body(PostgresRelationalConnection(connection, of: reads)) } catch let error as PSQLError {
                    throw error
                } catch let error as PostgresStoreError {
                    throw error
                } catch {
                    own = error
                    throw error
                }
            }
        } catch {
            if let own { throw own }
            throw StoreError(file: location.description, message: error.message)
        }
    }

    /// Creates the revision table and the mapped tables' triggers when missing, under an advisory
    /// lock (instances starting together do it one at a time). Once they are there, a role that
    /// may only read and write the rows can edit too.
    func install() throws(PostgresStoreError) {
        let logger = writes.logger
        let tables = tables
        try writes.transaction { connection in
            let db = PostgresRelationalConnection(connection, of: writes)
            if try installed(db) { return }
            try db.execute("SELECT pg_advisory_xact_lock(hashtext('drilldown_levels'))", [])
            try db.execute("CREATE TABLE IF NOT EXISTS drilldown_revisions (table_name text PRIMARY KEY, revision bigint NOT NULL DEFAULT 0)", [])
            // The trigger runs with its owner's rights (whoever writes the tables needs none on drilldown_revisions),
            // on this schema's revision table whatever the writer's search_path.
            let schema = "\"" + ColumnValue.text(try db.value("SELECT current_schema()") ?? .null).replacingOccurrences(of: "\"", with: "\"\"") + "\""
            try db.execute(
                """
                CREATE OR REPLACE FUNCTION drilldown_revise() RETURNS trigger LANGUAGE plpgsql
                    SECURITY DEFINER SET search_path = \(schema), pg_temp AS $$
                BEGIN
                    INSERT INTO drilldown_revisions AS r VALUES (TG_TABLE_NAME, 1)
                        ON CONFLICT (table_name) DO UPDATE SET revision = r.revision + 1;
                    PERFORM pg_notify('\(PostgresLevels.channel)', TG_TABLE_NAME);
                    RETURN NULL;
                END $$
                """, [])
            for table in tables {
                let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                try db.execute(
                    "CREATE OR REPLACE TRIGGER drilldown_revise AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(quoted) FOR EACH STATEMENT EXECUTE FUNCTION drilldown_revise()",
                    [])
                try db.execute("INSERT INTO drilldown_revisions VALUES (?, 0) ON CONFLICT DO NOTHING", [table.databaseValue])
            }
        }
    }

    /// Whether every mapped table has its trigger and its revision row.
    func installed(_ db: any RelationalConnection) throws -> Bool {
        guard try db.value("SELECT to_regclass('drilldown_revisions') IS NOT NULL") == 1.databaseValue else { return false }
        let marks = tables.map { _ in "?" }.joined(separator: ", ")
        let names = tables.map(\.databaseValue)
        let triggers = try db.integer(
            "SELECT COUNT(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = 'drilldown_revise' AND pg_table_is_visible(c.oid) AND c.relname IN (\(marks))", names)
        let revisions = try db.integer("SELECT COUNT(*) FROM drilldown_revisions WHERE table_name IN (\(marks))", names)
        return triggers == tables.count && revisions == tables.count
    }

    /// The sum of the mapped tables' revisions (0 before any instance installed them).
    func version() throws -> Int64 {
        let tables = tables
        return try read { db in
            guard try db.value("SELECT to_regclass('drilldown_revisions') IS NOT NULL") == 1.databaseValue else { return 0 }
            return try Self.version(db, tables)
        }
    }

    static func version(_ db: any RelationalConnection, _ tables: [String]) throws -> Int64 {
        guard !tables.isEmpty else { return 0 }
        let marks = tables.map { _ in "?" }.joined(separator: ", ")
        let value = try db.value("SELECT COALESCE(SUM(revision), 0)::bigint FROM drilldown_revisions WHERE table_name IN (\(marks))", tables.map(\.databaseValue))
        if case .int64(let n) = value?.storage { return n }
        return 0
    }

    /// Yes when a notification came or the listener reconnected since last time, or every 2 s.
    func refreshDue() -> Bool {
        polling.due(listener, every: Self.pollInterval) { now, then in now.heard != then.heard || now.generation != then.generation }
    }

    var news: AsyncStream<Void>? { listener?.news }

    func write<T>(_ body: (any RelationalConnection, Int64) throws -> T) throws -> (T, Int64) {
        let logger = writes.logger
        let tables = tables
        return try writes.transaction { connection in
            var db = PostgresRelationalConnection(connection, of: writes)
            db.scope = PostgresHistoryLog.scope(of: tables)
            guard !tables.isEmpty else { throw EditError("the mapping names no table that can be written") }
            // Writers queue here, on the mapped tables' revision rows, in one order.
            let marks = tables.map { _ in "?" }.joined(separator: ", ")
            let locked = try db.rows(
                "SELECT revision FROM drilldown_revisions WHERE table_name IN (\(marks)) ORDER BY table_name FOR UPDATE", tables.map(\.databaseValue))
            guard locked.count == tables.count else {
                throw EditError("the revision triggers of \(tables.joined(separator: ", ")) are not installed; open the database with --editable once", reason: .unavailable)
            }
            let seen = locked.reduce(Int64(0)) { sum, row in
                if case .int64(let n) = row.first?.storage { return sum + n }
                return sum
            }
            let result = try body(db, seen)
            return (result, try Self.version(db, tables))
        }
    }

    func editError(_ error: any Error, file: String) -> EditError {
        let failure = PostgresStoreError(location, error)
        return failure.conflict ?? failure.editError
    }
}
