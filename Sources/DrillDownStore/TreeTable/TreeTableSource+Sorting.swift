import DrillDownCore

extension TreeTableSource: SortingSource {
    /// The display order of the children of `id`, sorted in SQL in one query (`ORDER BY` a sort
    /// key of each row's field, then its place: SQLite ranks, reads and sorts the level on the
    /// server, once per snapshot; the presenter keeps the order and pages read rows as before).
    /// `nil` (the presenter sorts) on storage without it (PostgreSQL) or for generic titles.
    /// - Complexity: one query reading the level's rows and their field, O(n log n) in SQLite.
    public func sortedOrder(ofChildren id: NodeID, by field: SortField, descending: Bool, ignoring articles: [String]) -> LevelOrder? {
        let memberKeys: [String]
        switch field {
        case .title:
            guard isOutline else { return nil }
            memberKeys = keys.title
        case .attribute(let name): memberKeys = [Self.lowered(name)]
        }
        return load(nil) { s, db in
            let range = try childRange(of: id.rawValue, &s, db)
            guard !range.isEmpty, let li = s.levelIndex(containing: range.lowerBound) else { return nil }
            let list = s.levels[li].list
            guard
                let indices = try need(db).sortedIndices(
                    of: list, memberKeys: memberKeys, scalarsByValue: field == .title, descending: descending, articles: articles),
                indices.count == range.count
            else { return nil }
            return LevelOrder(dataIndices: indices)
        }
    }
}
