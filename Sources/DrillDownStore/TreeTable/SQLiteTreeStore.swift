import DrillDownCore
import Foundation
import GRDB

/// Any document stored as a tree table in an SQLite file: one row per node, in WAL mode.
///
/// The file holds two tables (layout version 2; version-1 files are migrated once by
/// ``migrate()``, which every editor runs, see ``TreeTableLayout``):
///
/// ```sql
/// CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);  -- format, version, documentFormat, outline, nextID
/// CREATE TABLE nodes(
///     id INTEGER PRIMARY KEY,      -- the root is the row whose parent is NULL
///     parent INTEGER,              -- NULL for the root
///     position INTEGER NOT NULL,   -- orders the parent's children (gapped: index × 2^20 when written whole)
///     kind INTEGER NOT NULL,       -- ValueKind's raw value: 0 object, 1 array, 2 string, 3 integer, …
///     key TEXT,                    -- the member's key in an object (NULL in arrays and at the root)
///     value TEXT,                  -- a scalar's text as written (NULL for containers)
///     nchildren INTEGER NOT NULL DEFAULT 0);  -- kept by triggers for every writer
/// CREATE INDEX nodes_by_parent ON nodes(parent, position);
/// ```
///
/// An editor (``TreeTableStore``) adds `step_keys`, the idempotency keys of its steps (see
/// ``SQLiteTreeDatabase``).
///
/// Values are kept as text with their ``ValueKind``, so `42`, `42.0` and the string `"42"`
/// survive a round trip, and so do dates, data (base64), nulls and empty containers.
///
/// ```swift
/// let store = try SQLiteTreeStore(path: "planets.sqlite")
/// try store.write(tree, documentFormat: "json")          // one transaction
/// let back = try store.read()                             // back.isStructurallyEqual(to: tree)
/// let source = try TreeTableSource(store: store)          // lazy: reads only what is shown
/// var editing = try TreeTableStore(path: "planets.sqlite")   // row-by-row edits, undo, other writers
/// ```
///
/// ``write(_:documentFormat:)`` replaces the whole table in one transaction (for `convert`): a
/// crash or an error in the middle leaves the previously committed tree. Editors never rewrite
/// the table: ``TreeTableStore`` writes only the rows a change touches.
public struct SQLiteTreeStore: Sendable {
    /// The database file.
    public let path: String
    let database: DatabaseQueue

    /// The value of `meta.format` in a tree table.
    public static let formatName = "drilldown-tree"
    /// The layout version this code writes and reads.
    public static let formatVersion = 2

    /// Opens the database at `path`, creating the file when `create` is true (and it is missing).
    ///
    /// With `readOnly`, nothing is ever written and the file must exist.
    public init(path: String, create: Bool = true, readOnly: Bool = false) throws(StoreError) {
        self.path = path
        guard SQLiteFile.isRegularOrMissing(path) else {
            throw StoreError(file: path, message: "not a regular file (a FIFO, socket, device or directory); not opened")
        }
        if readOnly || !create {
            guard FileManager.default.fileExists(atPath: path) else {
                throw StoreError(file: path, message: "no such file")
            }
        }
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(5)
        configuration.label = "DrillDown tree table"
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw StoreError(file: path, error)
        }
    }

    /// Whether the database holds a tree table (a `nodes` table, and a `meta` table naming this format).
    public func holdsTreeTable() throws(StoreError) -> Bool {
        do {
            return try database.read { db in
                guard try db.tableExists("nodes") else { return false }
                guard try db.tableExists("meta") else { return true }
                let format = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'")
                return format == nil || format == Self.formatName
            }
        } catch {
            throw StoreError(file: path, error)
        }
    }

    /// The format of the document the tree was imported from (`json`, `plist`, …), if recorded.
    public func documentFormat() throws(StoreError) -> String? {
        do {
            return try database.read { db in
                guard try db.tableExists("meta") else { return nil }
                return try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'documentFormat'")
            }
        } catch {
            throw StoreError(file: path, error)
        }
    }

    /// Brings a version-1 tree table to the current layout (once; see ``TreeTableLayout``), so it
    /// can be edited row by row. Does nothing on a current table.
    public func migrate() throws(StoreError) {
        do {
            try database.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    let version = try TreeTableLayout.version(db)
                    guard version > 0 else {
                        throw StoreError(
                            file: path,
                            message: "not a DrillDown tree table (it has no 'nodes' table); to browse an existing database give a schema with 'levels:'")
                    }
                    guard version <= Self.formatVersion else {
                        throw StoreError(file: path, message: "tree table version \(version) is newer than this drilldown reads (\(Self.formatVersion))")
                    }
                    if version < Self.formatVersion { try TreeTableLayout.migrate(db) }
                    return .commit
                }
            }
        } catch {
            throw StoreError(file: path, error)
        }
    }

    /// The journal mode of the open connection (`wal` once written).
    public func journalMode() throws(StoreError) -> String {
        do {
            return try database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
        } catch {
            throw StoreError(file: path, error)
        }
    }

    /// A `save` hook for ``DocumentModel`` over a whole tree in memory: each saved tree is written
    /// with ``write(_:documentFormat:)``. Editors use ``TreeTableStore`` instead, which writes rows.
    ///
    /// ```swift
    /// let model = DocumentModel(document: document, save: store.save)
    /// ```
    /// - Complexity: O(n) per save: the whole table is rewritten (see ``write(_:documentFormat:)``).
    public var save: @Sendable (TreeStore) throws -> Void {
        { tree in try self.write(tree) }
    }
}
