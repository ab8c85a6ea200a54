import DrillDownCore
import GRDB

/// Filters and facets in SQL (SQLite and PostgreSQL): a level's matching rows by `WHERE` with
/// bound values over the level's rows numbered in its order, and a facet by `GROUP BY`.
extension RelationalSource {
    /// The data indices of the children of `id` that `filter` matches, in one query: the level's
    /// rows numbered by its `ORDER BY` (so the indices are the rows' places, as TreePaths name
    /// them), kept where the filter's condition holds.
    public func matchingIndices(ofChildren id: NodeID, where filter: BoundFilter) -> [Int]? {
        guard let (level, parentKey) = filteredLevel(id),
            let condition = FilterSQL.condition(filter, dialect: level.dialect, column: { column($0, level) })
        else { return nil }
        let sql = """
            SELECT dd_n - 1 FROM (SELECT ROW_NUMBER() OVER (ORDER BY \(Keyset.orderBy(level.order, reversed: false))) AS dd_n, \
            \(level.quotedTable).* FROM \(level.quotedTable) WHERE \(level.parentFilter)) AS dd_rows \
            WHERE \(condition.sql) ORDER BY dd_n
            """
        let arguments = (level.filtersByParent ? [parentKey ?? .null] : []) + condition.arguments
        do {
            return try access.read { db in try db.rows(sql, arguments).map { Int(Int64.fromDatabaseValue($0[0]) ?? 0) } }
        } catch {
            cache.withState { failed(error, &$0) }
            return nil
        }
    }

    /// The top values of `field` over the children of `id` (those `filter` matches), by `GROUP BY`.
    public func facet(ofChildren id: NodeID, field: BoundFilter.Test, where filter: BoundFilter?, limit: Int) -> Facet? {
        guard let (level, parentKey) = filteredLevel(id), let col = column(field, level) else { return nil }
        var condition = "WHERE \(level.parentFilter)"
        var arguments: [DatabaseValue] = level.filtersByParent ? [parentKey ?? .null] : []
        if let filter {
            guard let c = FilterSQL.condition(filter, dialect: level.dialect, column: { column($0, level) }) else { return nil }
            condition += " AND " + c.sql
            arguments += c.arguments
        }
        let from = "FROM \(level.quotedTable) \(condition)"
        let text = "CAST(\(col) AS TEXT)"
        do {
            return try access.read { db in
                let totals = try db.rows("SELECT COUNT(*), COUNT(\(col)), COUNT(DISTINCT \(col)) \(from)", arguments).first ?? []
                func int(_ i: Int) -> Int { totals.count > i ? Int(Int64.fromDatabaseValue(totals[i]) ?? 0) : 0 }
                let top = try db.rows(
                    "SELECT \(text), COUNT(*) \(from) AND \(col) IS NOT NULL GROUP BY \(text) ORDER BY 2 DESC, 1 LIMIT \(max(0, limit))", arguments)
                return Facet(
                    field: field.key,
                    values: top.map { Facet.Value(value: String.fromDatabaseValue($0[0]) ?? "", count: Int(Int64.fromDatabaseValue($0[1]) ?? 0)) },
                    rows: int(0), missing: int(0) - int(1), distinct: int(2))
            }
        } catch {
            cache.withState { failed(error, &$0) }
            return nil
        }
    }

    /// The level below `id` and the parent row's key (`nil` under the root).
    func filteredLevel(_ id: NodeID) -> (ResolvedLevel, DatabaseValue?)? {
        guard let level = levelBelow(id) else { return nil }
        if id == root { return (level, nil) }
        guard let key = rowData(id)?.key else { return nil }
        return (level, key)
    }

    /// The quoted column a test reads: the title column for `title`, else the column of its key.
    func column(_ test: BoundFilter.Test, _ level: ResolvedLevel) -> String? {
        if test.key.lowercased() == "title" && level.column("title") == nil { return ResolvedLevel.quoted(level.title) }
        return level.column(test.key).map { ResolvedLevel.quoted($0.name) }
    }
}
