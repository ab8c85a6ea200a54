import DrillDownCore
import DrillDownStore
import PostgresNIO

/// A document stored as a tree table in PostgreSQL: one row per node, as in the SQLite tree table.
///
/// ```sql
/// CREATE TABLE <table>(
///     id bigint PRIMARY KEY,      -- from the sequence <table>_ids
///     parent bigint,              -- NULL for the root
///     position bigint NOT NULL,   -- orders the parent's children (gapped: index × 2^20 when written whole)
///     kind smallint NOT NULL,     -- ValueKind's raw value: 0 object, 1 array, 2 string, 3 integer, …
///     key text,                   -- the member's key in an object (NULL in arrays and at the root)
///     value text,                 -- a scalar's text as written (NULL for containers)
///     nchildren bigint NOT NULL); -- the number of children, kept by the trigger <table>_count
/// CREATE INDEX <table>_by_parent ON <table>(parent, position, id);
/// CREATE TABLE <table>_meta(key text PRIMARY KEY, value text NOT NULL);  -- format, version, documentFormat, outline, revision
/// ```
///
/// `nchildren` makes a level's size one row read, so a level of millions of rows opens as fast
/// as one of ten (see ``source(mode:keys:name:)``); `outline` records whether the tree follows the
/// outline convention, so opening never scans a level to find out. Tables written before version
/// 2 lack both: they are read with counts, and ``upgrade()`` adds them.
///
/// `revision` counts committed changes: every change increments it in its transaction (which
/// also serializes writers of the table) and announces it with `NOTIFY drilldown_<table>`.
///
/// ```swift
/// let table = try PostgresTreeTable(try PostgresLocation(url: "postgres://dd@127.0.0.1/db?table=music"))
/// try table.write(tree, documentFormat: "json")     // replaces the table in one transaction
/// let snapshot = try table.read()                    // the whole tree and its revision (convert)
/// ```
public struct PostgresTreeTable: Sendable {
    /// Where the table is.
    public let location: PostgresLocation
    let session: PostgresSession

    /// The value of `meta.format`.
    public static let formatName = "drilldown-tree"
    /// The layout version written (`meta.version`): 2 has `nchildren` and `outline`.
    public static let formatVersion = 2
    /// The distance between neighbouring siblings' positions in a level written whole.
    static let positionGap: Int64 = 1 << 20

    /// Connects lazily: nothing is sent until the first read or write.
    public init(_ location: PostgresLocation) throws(PostgresStoreError) {
        self.location = location
        session = try PostgresSession(location)
    }

    var table: String { location.table }

    /// The tree as stored now and the revision it was read at.
    public struct Snapshot: Sendable {
        public var tree: TreeStore
        public var revision: Int64
        /// The format of the document it was imported from, if recorded.
        public var documentFormat: String?
    }

    /// The table's meta rows, after checking that it is a tree table.
    static func meta(of location: PostgresLocation, _ connection: PostgresConnection, _ logger: Logger) throws -> [String: String] {
        let table = location.table
        let exists = try connection.rows("SELECT to_regclass(\(table))::text, to_regclass(\(table + "_meta"))::text", logger)
        guard let first = exists.first, try first.decode((String?, String?).self).0 != nil else {
            throw PostgresStoreError(location, "there is no table '\(table)'; import a document with: drilldown convert FILE '\(location)'")
        }
        guard try first.decode((String?, String?).self).1 != nil else {
            throw PostgresStoreError(location, "table '\(table)' is not a DrillDown tree table (it has no '\(table)_meta' table)")
        }
        var meta: [String: String] = [:]
        for row in try connection.rows(PostgresQuery(unsafeSQL: "SELECT key, value FROM \(table)_meta"), logger) {
            let (k, v) = try row.decode((String, String).self)
            meta[k] = v
        }
        guard meta["format"] == Self.formatName else {
            throw PostgresStoreError(location, "table '\(table)' is not a DrillDown tree table (its meta names no format '\(Self.formatName)')")
        }
        return meta
    }

    /// A lazy snapshot of the table (see ``DrillDownStore/TreeTableSource``): opening reads the
    /// meta and the root row; levels are read a page of 100 rows at a time, on a connection of
    /// the source's own. `mode` `nil` takes the one recorded at import with the standard keys (with
    /// other keys, or on a table written before it was recorded, the table is read whole once to find it).
    public func source(mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String? = nil) throws(PostgresStoreError) -> TreeTableSource {
        let location = location
        let logger = session.logger
        let (meta, counts) = try session.run { connection in
            let meta = try Self.meta(of: location, connection, logger)
            let column = try connection.rows("""
                SELECT 1 FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = \(location.table) AND column_name = 'nchildren'
                """, logger)
            return (meta, !column.isEmpty)
        }
        var resolved = mode
        if resolved == nil, keys == .standard, let flag = meta["outline"] { resolved = flag == "1" ? .outline(keys) : .generic }
        if resolved == nil { resolved = DocumentSource(tree: try read().tree, mode: nil, keys: keys).mode }
        let reader = PostgresNodeRows(session: try PostgresSession(location, connections: PostgresSession.readConnections), table: location.table, hasCounts: counts)
        do {
            return try TreeTableSource(reader: reader, mode: resolved ?? .generic, keys: keys, name: name ?? location.table)
        } catch {
            throw PostgresStoreError(location, error.message)
        }
    }

    /// Brings a table written before version 2 up to it in one transaction: `nchildren` counted
    /// once and kept by the trigger from then on, and the outline flag recorded. Does nothing to a
    /// version-2 table.
    public func upgrade() throws(PostgresStoreError) {
        let location = location
        let logger = session.logger
        let table = table
        let meta = try session.run { connection in try Self.meta(of: location, connection, logger) }
        guard (Int(meta["version"] ?? "1") ?? 1) < Self.formatVersion else { return }
        let outline: Bool
        if case .outline = DocumentSource(tree: try read().tree).mode { outline = true } else { outline = false }
        try session.transaction { connection in
            try connection.execute(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS nchildren bigint NOT NULL DEFAULT 0"), logger)
            try connection.execute(PostgresQuery(unsafeSQL: """
                UPDATE \(table) t SET nchildren = c.n
                FROM (SELECT parent, count(*) AS n FROM \(table) WHERE parent IS NOT NULL GROUP BY parent) c WHERE t.id = c.parent
                """), logger)
            try Self.createCounting(table, connection, logger)
            try Self.createTextIndex(table, connection, logger)
            try connection.execute("""
                INSERT INTO \(unescaped: table)_meta(key, value) VALUES ('version', \(String(Self.formatVersion))), ('outline', \(outline ? "1" : "0"))
                ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
                """, logger)
        }
    }

    /// Reads the whole table in one consistent (repeatable-read) transaction.
    public func read() throws(PostgresStoreError) -> Snapshot {
        let logger = session.logger
        let location = location
        let table = table
        // A whole table can take long to read: an hour's deadline, not a request's.
        return try session.transaction(isolation: "REPEATABLE READ READ ONLY", timeout: .seconds(3600)) { connection throws -> Snapshot in
            let meta = try Self.meta(of: location, connection, logger)
            let sink = RowSink()
            _ = try connection.bounded(connection.query(PostgresQuery(unsafeSQL: "SELECT id, parent, position, kind, key, value FROM \(table)"), logger: logger) { row in
                let (id, parent, position, kind, key, value) = try row.decode((Int64, Int64?, Int64, Int16, String?, String?).self)
                sink.rows.append(id: id, parent: parent, position: position, kind: kind, key: key, value: value)
            })
            let rows = sink.rows
            let tree: TreeStore
            do throws(ParentLinkedRows.Invalid) { tree = try rows.build() } catch { throw PostgresStoreError(location, "table '\(table)': \(error.message)") }
            return Snapshot(tree: tree, revision: Int64(meta["revision"] ?? "0") ?? 0, documentFormat: meta["documentFormat"])
        }
    }

    /// The revision now (one row read).
    public func revision() throws(PostgresStoreError) -> Int64 {
        let logger = session.logger
        let table = table
        return try session.run { connection in
            let rows = try connection.rows(PostgresQuery(unsafeSQL: "SELECT value FROM \(table)_meta WHERE key = 'revision'"), logger)
            return Int64(try rows.first?.decode(String.self) ?? "0") ?? 0
        }
    }

    /// The longest a ``write(_:documentFormat:progress:)`` may take.
    static let writeTimeout: Duration = .seconds(3600)

    /// Replaces the table (and its meta and sequence) with `tree` in one transaction: the rows
    /// streamed with `COPY` (``TreeCopy``), then the index. Others see the old
    /// table until the commit, and the new one announced by NOTIFY after it. `progress`, when
    /// given, is told the rows sent so far as the copy goes (from the copy's own thread).
    public func write(_ tree: TreeStore, documentFormat: String?, progress: (@Sendable (Int) -> Void)? = nil) throws(PostgresStoreError) {
        let logger = session.logger
        let table = table
        let channel = location.channel
        // A whole document's COPY and index are one call: bounded by an hour, not by the
        // per-call deadline meant for a request (5 s by default), which a 1M-row copy outlasts.
        try session.transaction(timeout: Self.writeTimeout) { connection in
            for drop in ["TABLE IF EXISTS \(table)", "TABLE IF EXISTS \(table)_meta", "SEQUENCE IF EXISTS \(table)_ids", "FUNCTION IF EXISTS \(table)_count()"] {
                try connection.execute(PostgresQuery(unsafeSQL: "DROP \(drop)"), logger)
            }
            try connection.execute(PostgresQuery(unsafeSQL: """
                CREATE TABLE \(table)(id bigint PRIMARY KEY, parent bigint, position bigint NOT NULL,
                    kind smallint NOT NULL, key text, value text, nchildren bigint NOT NULL DEFAULT 0)
                """), logger)
            try connection.execute(PostgresQuery(unsafeSQL: "CREATE TABLE \(table)_meta(key text PRIMARY KEY, value text NOT NULL)"), logger)
            let next = try TreeCopy.copy(tree, into: table, positionGap: Self.positionGap, connection, logger, progress: progress)
            try connection.execute(PostgresQuery(unsafeSQL: "CREATE INDEX \(table)_by_parent ON \(table)(parent, position, id)"), logger)
            try Self.createTextIndex(table, connection, logger)
            try Self.createCounting(table, connection, logger)
            try connection.execute(PostgresQuery(unsafeSQL: "CREATE SEQUENCE \(table)_ids START WITH \(next)"), logger)
            var outline = false
            if case .outline = DocumentSource(tree: tree).mode { outline = true }
            try connection.execute(
                """
                INSERT INTO \(unescaped: table)_meta(key, value) VALUES ('format', \(Self.formatName)), ('version', \(String(Self.formatVersion))),
                    ('documentFormat', \(documentFormat ?? "")), ('outline', \(outline ? "1" : "0")), ('revision', '1')
                """,
                logger)
            try connection.execute(PostgresQuery(unsafeSQL: "ANALYZE \(table)"), logger)
            try connection.execute("SELECT pg_notify(\(channel), '1')", logger)
        }
    }

    /// The number of rows, the depth and the widest level of the stored tree, counted in SQL.
    public func shape() throws(PostgresStoreError) -> (nodes: Int, depth: Int, widest: Int) {
        let logger = session.logger
        let table = table
        return try session.run { connection in
            let counts = try connection.rows(PostgresQuery(unsafeSQL: """
                SELECT (SELECT count(*) FROM \(table)),
                    (WITH RECURSIVE d(id, depth) AS (SELECT id, 0 FROM \(table) WHERE parent IS NULL
                        UNION ALL SELECT n.id, d.depth + 1 FROM \(table) AS n JOIN d ON n.parent = d.id) SELECT max(depth) FROM d),
                    (SELECT max(c) FROM (SELECT count(*) AS c FROM \(table) WHERE parent IS NOT NULL GROUP BY parent) AS w)
                """), logger)
            let (nodes, depth, widest) = try counts[0].decode((Int64, Int64?, Int64?).self)
            return (Int(nodes), Int(depth ?? 0), Int(widest ?? 0))
        }
    }

    /// The number of rows shown in all levels, counted in SQL: in the outline convention the rows
    /// of lists (the root array, or arrays under its list keys), generically every node but the root.
    public func rowCount(outline mode: ReadingMode) throws(PostgresStoreError) -> Int {
        let logger = session.logger
        let table = table
        var query = PostgresQuery(unsafeSQL: "SELECT count(*) - 1 FROM \(table)")
        if case .outline(let keys) = mode {
            let lists = (keys.children + keys.rows).map { $0.lowercased() }
            query = """
                SELECT count(*) FROM \(unescaped: table) r JOIN \(unescaped: table) l ON l.id = r.parent
                WHERE l.kind = 1 AND (l.parent IS NULL OR translate(l.key, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = ANY(\(lists)::text[]))
                """
        }
        return try session.run { connection in Int(try connection.rows(query, logger)[0].decode(Int64.self)) }
    }

    /// Whether the server answers (for `/readyz`): `nil`, or why not.
    public func ping() -> String? { session.ping() }

    /// The trigram index on `value` that searches use (`ILIKE '%…%'`), when the server has the
    /// `pg_trgm` extension (PostgreSQL's contrib; trusted, so a database owner may create it).
    /// Without it searches scan the table, still in SQL.
    static func createTextIndex(_ table: String, _ connection: PostgresConnection, _ logger: Logger) throws {
        try connection.execute("SAVEPOINT text_index", logger)
        do {
            try connection.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm", logger)
            try connection.execute(PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(table)_value_trgm ON \(table) USING gin (value gin_trgm_ops)"), logger)
            try connection.execute("RELEASE SAVEPOINT text_index", logger)
        } catch {
            try connection.execute("ROLLBACK TO SAVEPOINT text_index", logger)
        }
    }

    /// The trigger that keeps `nchildren` right whoever writes (this store, `psql`, another tool).
    static func createCounting(_ table: String, _ connection: PostgresConnection, _ logger: Logger) throws {
        try connection.execute(PostgresQuery(unsafeSQL: """
            CREATE OR REPLACE FUNCTION \(table)_count() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP <> 'DELETE' AND NEW.parent IS NOT NULL THEN
                    UPDATE \(table) SET nchildren = nchildren + 1 WHERE id = NEW.parent;
                END IF;
                IF TG_OP <> 'INSERT' AND OLD.parent IS NOT NULL THEN
                    UPDATE \(table) SET nchildren = nchildren - 1 WHERE id = OLD.parent;
                END IF;
                RETURN NULL;
            END $$
            """), logger)
        try connection.execute(PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(table)_counts ON \(table)"), logger)
        try connection.execute(PostgresQuery(unsafeSQL: """
            CREATE TRIGGER \(table)_counts AFTER INSERT OR DELETE OR UPDATE OF parent ON \(table)
                FOR EACH ROW EXECUTE FUNCTION \(table)_count()
            """), logger)
    }
}

/// Where rows streamed by the event loop are gathered; read only after the query's future
/// completed, which orders the event loop's writes before the read.
final class RowSink: @unchecked Sendable {
    var rows = NodeRows()
}

/// Rows gathered column by column for one `INSERT … SELECT * FROM unnest(…)` (a subtree a change adds).
struct RowBatch {
    var ids: [Int64] = []
    var parents: [Int64] = []
    var hasParent: [Bool] = []
    var positions: [Int64] = []
    var kinds: [Int16] = []
    var keys: [String] = []
    var hasKey: [Bool] = []
    var values: [String] = []
    var hasValue: [Bool] = []

    var count: Int { ids.count }

    mutating func append(id: Int64, parent: Int64?, position: Int64, kind: Int16, key: String?, value: String?) {
        ids.append(id)
        parents.append(parent ?? 0)
        hasParent.append(parent != nil)
        positions.append(position)
        kinds.append(kind)
        keys.append(key ?? "")
        hasKey.append(key != nil)
        values.append(value ?? "")
        hasValue.append(value != nil)
    }

    func insert(into table: String, _ connection: PostgresConnection, _ logger: Logger) throws {
        try connection.execute("""
            INSERT INTO \(unescaped: table)(id, parent, position, kind, key, value)
            SELECT id, CASE WHEN hp THEN p END, pos, k, CASE WHEN hk THEN ky END, CASE WHEN hv THEN v END
            FROM unnest(\(ids)::int8[], \(parents)::int8[], \(hasParent)::bool[], \(positions)::int8[], \(kinds)::int2[],
                        \(keys)::text[], \(hasKey)::bool[], \(values)::text[], \(hasValue)::bool[])
                AS r(id, p, hp, pos, k, ky, hk, v, hv)
            """, logger)
    }
}
