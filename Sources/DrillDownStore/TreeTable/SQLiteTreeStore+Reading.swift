import DrillDownCore
import GRDB

extension SQLiteTreeStore {
    /// Reads the stored tree back into a ``TreeStore``.
    ///
    /// The nodes are read in one table scan, grouped by parent in memory and ordered by
    /// position, then replayed into a ``TreeBuilder`` depth-first with an explicit stack (no
    /// recursion, so any depth works). A table that does not form one tree (no root or several,
    /// a parent that does not exist, a scalar with children, a parent cycle, an unknown kind)
    /// is rejected with a message naming the node.
    ///
    /// ```swift
    /// let tree = try SQLiteTreeStore(path: "data.sqlite", readOnly: true).read()
    /// ```
    /// - Complexity: O(n) for a table written by ``write(_:documentFormat:)``; O(n log n) at worst.
    public func read() throws(StoreError) -> TreeStore {
        let table: NodeTable
        do {
            table = try database.read { db in
                guard try db.tableExists("nodes") else {
                    throw StoreError(
                        file: path,
                        message: "not a DrillDown tree table (it has no 'nodes' table); to browse an existing database give a schema with 'levels:'")
                }
                if try db.tableExists("meta"),
                    let version = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'version'"),
                    (Int(version) ?? Int.max) > Self.formatVersion
                {
                    throw StoreError(file: path, message: "tree table version \(version) is newer than this drilldown reads (\(Self.formatVersion))")
                }
                return try NodeTable(db)
            }
        } catch {
            throw StoreError(file: path, error)
        }
        do {
            return try table.build()
        } catch {
            throw StoreError(file: path, message: "nodes table: \(error.message)")
        }
    }
}

extension SQLiteTreeStore {
    /// The number of nodes, the depth of the deepest one and the most children of one node, in SQL
    /// (what ``TreeStore/count``, ``TreeStore/maxDepth()`` and ``TreeStore/widestLevel()`` give for the tree).
    /// - Complexity: O(n), without building the tree.
    public func shape() throws(StoreError) -> (nodes: Int, depth: Int, widest: Int) {
        do {
            return try database.read { db in
                let nodes = try Int.fetchOne(db, sql: "SELECT count(*) FROM nodes") ?? 0
                let depth = try Int.fetchOne(db, sql: """
                    WITH RECURSIVE d(id, depth) AS (SELECT id, 0 FROM nodes WHERE parent IS NULL
                        UNION ALL SELECT n.id, d.depth + 1 FROM nodes AS n JOIN d ON n.parent = d.id)
                    SELECT max(depth) FROM d
                    """) ?? 0
                let widest = try Int.fetchOne(db, sql: "SELECT max(c) FROM (SELECT count(*) AS c FROM nodes WHERE parent IS NOT NULL GROUP BY parent)") ?? 0
                return (nodes, depth, widest)
            }
        } catch {
            throw StoreError(file: path, error)
        }
    }
}
