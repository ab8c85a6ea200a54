import DrillDownCore
import GRDB

/// The layout of a tree table (version 2) and the one-time migration of version-1 tables.
///
/// Version 2 adds to version 1:
/// - `nodes.nchildren`, each node's number of children, kept by three triggers for every writer
///   (this code, another `drilldown`, the `sqlite3` shell), so a level's size is one row read,
///   never a `COUNT(*)` over the level;
/// - gapped positions (`index × positionGap`), so an insert between two siblings takes the middle
///   position and renumbers nothing until a gap is used up (then only that level is renumbered);
/// - `meta.outline`: whether the tree follows the outline convention with the standard keys,
///   computed once, so opening never scans a level to find out.
enum TreeTableLayout {
    /// The distance between the positions of neighbouring siblings in a freshly written level.
    static let positionGap: Int64 = 1 << 20

    static let createNodes = """
        CREATE TABLE nodes(
            id INTEGER PRIMARY KEY,
            parent INTEGER,
            position INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            key TEXT,
            value TEXT,
            nchildren INTEGER NOT NULL DEFAULT 0);
        """

    static let createIndex = "CREATE INDEX IF NOT EXISTS nodes_by_parent ON nodes(parent, position)"

    /// The triggers that keep `nchildren` right whoever writes.
    static let createTriggers = """
        CREATE TRIGGER IF NOT EXISTS nodes_count_insert AFTER INSERT ON nodes WHEN NEW.parent IS NOT NULL
        BEGIN UPDATE nodes SET nchildren = nchildren + 1 WHERE id = NEW.parent; END;
        CREATE TRIGGER IF NOT EXISTS nodes_count_delete AFTER DELETE ON nodes WHEN OLD.parent IS NOT NULL
        BEGIN UPDATE nodes SET nchildren = nchildren - 1 WHERE id = OLD.parent; END;
        CREATE TRIGGER IF NOT EXISTS nodes_count_move AFTER UPDATE OF parent ON nodes WHEN OLD.parent IS NOT NEW.parent
        BEGIN
            UPDATE nodes SET nchildren = nchildren - 1 WHERE id = OLD.parent;
            UPDATE nodes SET nchildren = nchildren + 1 WHERE id = NEW.parent;
        END;
        """

    /// The layout version of the tree table in `db` (0 when there is none).
    static func version(_ db: Database) throws -> Int {
        guard try db.tableExists("nodes") else { return 0 }
        guard try db.tableExists("meta"),
            let text = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'version'")
        else { return 1 }
        return Int(text) ?? Int.max
    }

    /// Whether `nodes` has the maintained `nchildren` column.
    static func hasCounts(_ db: Database) throws -> Bool {
        try db.columns(in: "nodes").contains { $0.name == "nchildren" }
    }

    /// Brings a version-1 table to version 2 in one transaction: counts, gapped positions, triggers
    /// and the outline flag. O(n) once; later opens find version 2 and do nothing.
    static func migrate(_ db: Database) throws {
        if try !hasCounts(db) {
            try db.execute(sql: "ALTER TABLE nodes ADD COLUMN nchildren INTEGER NOT NULL DEFAULT 0")
        }
        try db.execute(sql: """
            UPDATE nodes SET position = position * \(positionGap),
                nchildren = (SELECT count(*) FROM nodes AS c WHERE c.parent = nodes.id)
            """)
        try finish(db)
    }

    /// Index, triggers and meta of a version-2 table whose rows are written.
    static func finish(_ db: Database) throws {
        try db.execute(sql: createIndex)
        try db.execute(sql: createTriggers)
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        try db.execute(
            sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('format', ?), ('version', ?)",
            arguments: [SQLiteTreeStore.formatName, String(SQLiteTreeStore.formatVersion)])
        let outline = try followsOutlineConvention(db, keys: .standard)
        try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('outline', ?)", arguments: [outline ? "1" : "0"])
    }

    /// Whether the tree follows the outline convention with `keys` (as ``DocumentSource`` decides
    /// it): a root object whose rows list holds only objects, or a root array of titled objects
    /// some of which have children. Scans the first level once.
    static func followsOutlineConvention(_ db: Database, keys: OutlineKeys) throws -> Bool {
        guard let root = try GRDB.Row.fetchOne(db, sql: "SELECT id, kind FROM nodes WHERE parent IS NULL ORDER BY id LIMIT 1") else {
            return false
        }
        let rootID: Int64 = root[0]
        let rootKind: Int64 = root[1]
        if rootKind == Int64(ValueKind.object.rawValue) {
            guard let list = try member(db, of: rootID, keys: keys.rows), list.kind == Int64(ValueKind.array.rawValue) else {
                return false
            }
            return try !Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM nodes WHERE parent = ? AND kind <> 0)", arguments: [list.id])!
        }
        guard rootKind == Int64(ValueKind.array.rawValue) else { return false }
        let items = try Int.fetchOne(db, sql: "SELECT count(*) FROM nodes WHERE parent = ?", arguments: [rootID]) ?? 0
        guard items > 0 else { return false }
        guard try !Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM nodes WHERE parent = ? AND kind <> 0)", arguments: [rootID])! else {
            return false
        }
        let titled = try Int.fetchOne(
            db, sql: "SELECT count(DISTINCT parent) FROM nodes WHERE parent IN (SELECT id FROM nodes WHERE parent = ?) AND key COLLATE NOCASE IN (\(inList(keys.title)))",
            arguments: [rootID]) ?? 0
        guard titled == items else { return false }
        return try Bool.fetchOne(
            db, sql: "SELECT EXISTS(SELECT 1 FROM nodes WHERE parent IN (SELECT id FROM nodes WHERE parent = ?) AND key COLLATE NOCASE IN (\(inList(keys.children))))",
            arguments: [rootID]) ?? false
    }

    /// A literal SQL list of `keys` (`'title', 'name'`), for `key COLLATE NOCASE IN (…)`.
    static func inList(_ keys: [String]) -> String {
        keys.map { "'\($0.replacingOccurrences(of: "'", with: "''"))'" }.joined(separator: ", ")
    }

    /// The first member of `id` whose key is one of `keys` (earlier keys win; ASCII case ignored).
    static func member(_ db: Database, of id: Int64, keys: [String]) throws -> (id: Int64, kind: Int64)? {
        for key in keys {
            if let row = try GRDB.Row.fetchOne(
                db, sql: "SELECT id, kind FROM nodes WHERE parent = ? AND key = ? COLLATE NOCASE ORDER BY position, id LIMIT 1",
                arguments: [id, key])
            {
                return (row[0], row[1])
            }
        }
        return nil
    }
}
