import DrillDownCore

extension RelationalMapping {
    /// This mapping with each level whose kind has a `sort:` on one column (`sort: title`, a field
    /// such as `sort: -plays`, or a template of one field such as `sort: "{year}"`) ordered by that
    /// column first, so the database sorts the level on the server (`ORDER BY name, id`, keyset
    /// paged, served by an index on the column when there is one). The level's own `order:` terms
    /// follow as tie-breakers, then the key.
    ///
    /// A database's rows have no order but the one a query gives them: a sorted level's TreePaths
    /// name the rows' places in that order, the same in every front end. On SQLite a text column
    /// sorts with ``SortCollation`` (the documents' collation: case and accents ignored, the
    /// schema's `sortIgnoring:` words skipped); PostgreSQL sorts with the database's collation.
    public func sorted(by schema: Schema) -> RelationalMapping {
        var sorted = self
        sorted.sortIgnoring = schema.sortIgnoring
        for i in sorted.levels.indices {
            let level = sorted.levels[i]
            guard let rule = schema.template(named: level.kind ?? level.name)?.sort, let column = level.sortColumn(rule) else { continue }
            let term = column + (rule.descending ? " DESC" : "")
            sorted.levels[i].sort = rule
            sorted.levels[i].order = [term] + level.order.filter { $0.split(separator: " ").first.map(String.init)?.lowercased() != column.lowercased() }
        }
        return sorted
    }
}

extension RelationalMapping.Level {
    /// The column `rule` sorts this level by, when it sorts by one column.
    func sortColumn(_ rule: SortRule) -> String? {
        switch rule.key {
        case .title: return title
        case .field(let name): return name
        case .template(let text):
            guard let template = try? TextTemplate(text), template.keys.count == 1, text.trimmingCharacters(in: .whitespaces) == "{\(template.keys[0])}" else { return nil }
            return template.keys[0]
        }
    }
}

extension RelationalSource: SortingSource {
    /// Whether the level under `id` is read in `rule`'s order: its first `ORDER BY` term is the
    /// rule's column in the rule's direction (see ``RelationalMapping/sorted(by:)``).
    public func sorts(childrenOf id: NodeID, by rule: SortRule) -> Bool {
        let depth: Int
        if id == root {
            depth = 0
        } else {
            guard let d = cache.withState({ state in state.locate(id).flatMap { state.blocks[$0.block] }?.depth }) else { return false }
            depth = d + 1
        }
        guard depth < levels.count, let first = levels[depth].order.first, let column = levels[depth].level.sortColumn(rule) else { return false }
        return first.column.caseInsensitiveCompare(column) == .orderedSame && first.descending == rule.descending
    }
}
