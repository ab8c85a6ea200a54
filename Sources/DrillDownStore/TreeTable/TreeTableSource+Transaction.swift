import DrillDownCore

extension TreeTableSource {
    /// Whether `other` is this very snapshot (the same cache), not a newer one.
    package func isSnapshot(_ other: TreeTableSource) -> Bool { cache === other.cache }

    /// This snapshot when no other writer committed since it was taken, else a new one.
    package func current(in q: any NodeRowQueries) throws -> TreeTableSource {
        try q.version() == version ? self : try renewed(q)
    }

    /// This snapshot reading through the open transaction of `q` (and only while it is open).
    package func bound(to q: any NodeRowQueries) -> TreeTableSource {
        var copy = self
        copy.transaction = TransactionHandle(queries: q)
        return copy
    }

    package var unbound: TreeTableSource {
        var copy = self
        copy.transaction = nil
        return copy
    }

    /// Runs `body` on the cache inside the open transaction, rethrowing any error.
    func inTransaction<T>(_ body: (inout TreeTableCache.State, any NodeRowQueries) throws -> T) throws -> T {
        guard let handle = transaction else { throw NeedsDatabase() }
        return try cache.withState { try body(&$0, handle.queries) }
    }

    /// The stored row shown at `path`, or `nil` when the path leaves the tree.
    func storedRow(at path: TreePath) throws -> LevelRow? { try resolve(path)?.row }

    /// The node at `path` and its stored row, or `nil` when the path leaves the tree.
    func resolve(_ path: TreePath) throws -> (id: NodeID, row: LevelRow)? {
        try inTransaction { s, db in
            var id: Int32 = 0
            for i in path.indices {
                let range = try childRange(of: id, &s, db)
                guard i >= 0, i < range.count else { return nil }
                id = range[i].rawValue
            }
            return try row(id, &s, db).map { (NodeID(id), $0) }
        }
    }
}
