import DrillDownCore
import GRDB
#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

extension SQLiteTreeStore {
    /// Replaces the stored tree with `tree`, in one transaction.
    ///
    /// The nodes table is dropped and refilled through one prepared statement (layout version 2:
    /// child counts filled in, positions `index × 2^20`), then its `(parent, position)` index and
    /// the count triggers are created; `meta` records the layout version and, when given,
    /// the format of the document the tree came from (kept from the previous write otherwise).
    /// If anything fails, the transaction rolls back and the previous tree stays. A `nodes` table
    /// that this code did not write (no `meta.format` naming it) is never replaced.
    ///
    /// `progress`, when given, is told the nodes inserted so far every 8192 nodes and once more when
    /// all are in (the index is built after that).
    ///
    /// ```swift
    /// try SQLiteTreeStore(path: "data.sqlite").write(tree, documentFormat: "json")
    /// ```
    /// - Complexity: O(n log n) for n nodes (the index build); about a second per million nodes.
    public func write(_ tree: TreeStore, documentFormat: String? = nil, progress: ((Int) -> Void)? = nil) throws(StoreError) {
        do {
            try database.write { db in
                if try db.tableExists("nodes") {
                    let format = try db.tableExists("meta") ? try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'") : nil
                    guard format == Self.formatName else {
                        throw StoreError(file: path, message: "its 'nodes' table is not a DrillDown tree table; refusing to replace it")
                    }
                }
                try db.execute(sql: "PRAGMA cache_size = -65536")
                try db.execute(sql: "DROP TABLE IF EXISTS nodes")
                try db.execute(sql: TreeTableLayout.createNodes)
                try Self.insertNodes(of: tree, into: db, progress: progress)
                try TreeTableLayout.finish(db)
                if let documentFormat {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('documentFormat', ?)", arguments: [documentFormat])
                }
            }
        } catch {
            throw StoreError(file: path, error)
        }
    }

    /// Inserts every node of `tree` in id order through one prepared statement.
    ///
    /// Keys and values are bound as text straight from the tree's byte buffer (no `String` per node).
    static func insertNodes(of edited: TreeStore, into db: Database, progress: ((Int) -> Void)? = nil) throws {
        // Row ids are node ids, so they must be dense: an edited tree is compacted first.
        let tree = edited.compacted()
        let statement = try db.makeStatement(sql: "INSERT INTO nodes(id, parent, position, kind, key, value, nchildren) VALUES (?, ?, ?, ?, ?, ?, ?)")
        let handle = statement.sqliteStatement
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        /// Binds `bytes` as text (never as NULL, even when empty), then runs `body`.
        func bindText(_ bytes: TextBytes, at index: CInt, then body: () throws -> Void) throws {
            if bytes.isEmpty {
                sqlite3_bind_text(handle, index, "", 0, transient)
                try body()
                return
            }
            try bytes.withUnsafeBufferPointer { buffer in
                let text = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                sqlite3_bind_text(handle, index, text, CInt(buffer.count), nil)
                try body()
            }
        }
        func step() throws {
            let code = sqlite3_step(handle)
            sqlite3_reset(handle)
            guard code == SQLITE_DONE else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
        }
        for index in 0 ..< tree.count {
            if index & 8191 == 0, index > 0 { progress?(index) }
            let id = NodeID(index)
            let kind = tree.kind(of: id)
            sqlite3_bind_int64(handle, 1, Int64(index))
            let parent = tree.parent(of: id)
            if let parent {
                sqlite3_bind_int64(handle, 2, Int64(parent.rawValue))
            } else {
                sqlite3_bind_null(handle, 2)
            }
            sqlite3_bind_int64(handle, 3, Int64(tree.position(of: id)) * TreeTableLayout.positionGap)
            sqlite3_bind_int64(handle, 7, Int64(kind.isContainer ? tree.childCount(of: id) : 0))
            sqlite3_bind_int(handle, 4, CInt(kind.rawValue))
            let keyBytes = tree.keyBytes(of: id)
            let hasKey = parent.map { tree.kind(of: $0) == .object } ?? false || !keyBytes.isEmpty
            let bindValue = {
                if kind.isContainer {
                    sqlite3_bind_null(handle, 6)
                    try step()
                } else {
                    try bindText(tree.valueBytes(of: id), at: 6, then: step)
                }
            }
            if hasKey {
                try bindText(keyBytes, at: 5, then: bindValue)
            } else {
                sqlite3_bind_null(handle, 5)
                try bindValue()
            }
        }
        progress?(tree.count)
    }
}
