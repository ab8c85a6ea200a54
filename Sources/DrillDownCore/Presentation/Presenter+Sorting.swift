import Foundation

/// Sorted levels: every front end shows a level through these, so the web pages, outline and
/// columns, the terminal UI and the CLI agree on the order. TreePaths keep naming the data: a
/// row's path is its index among its parent's children in the data, wherever the sort shows it.
extension Presenter {
    /// The rule that orders the level under `id`: the one given with ``sorting(_:by:)`` for that
    /// level, else the `sort:` of the kind of the level's first row; `nil` keeps the data's order.
    /// - Complexity: O(depth).
    public func sortRule(of id: NodeID) -> SortRule? {
        if let levelSort, levelSort.level == id { return levelSort.rule }
        guard !schema.kinds.isEmpty, let first = source.children(of: id).first else { return nil }
        return kind(of: first)?.sort
    }

    /// This presenter with the level under `id` sorted by `rule` (`nil`: in the data's order),
    /// whatever the schema says (the web app's Sort menu).
    public func sorting(_ id: NodeID, by rule: SortRule?) -> Presenter {
        var copy = self
        copy.levelSort = (id, rule)
        return copy
    }

    /// The display order of the level under `id`, or `nil` when it shows in the data's order
    /// (no sort, or a store that sorts it itself, see ``SortingSource``). Computed once per level
    /// and presenter cache (``LevelOrders``).
    /// - Complexity: O(n log n) for a level of n rows the first time, O(depth) after.
    public func order(of id: NodeID) -> LevelOrder? {
        guard let rule = sortRule(of: id) else { return nil }
        let sorting = source as? any SortingSource
        if let sorting, sorting.sorts(childrenOf: id, by: rule) { return nil }
        return orders.order(of: id, by: rule) {
            let children = source.children(of: id)
            if let sorting, let field = sortField(rule, first: children.first),
                let stored = sorting.sortedOrder(ofChildren: id, by: field, descending: rule.descending, ignoring: schema.sortIgnoring),
                stored.count == children.count
            {
                return stored
            }
            return LevelOrder(values: children.map { sortValue(of: $0, by: rule) }, descending: rule.descending)
        }
    }

    /// The one field `rule` reads, for a store to sort by: `nil` when it renders a template of more
    /// than a single plain `{field}`.
    public func sortField(_ rule: SortRule, first: NodeID?) -> SortField? {
        func single(_ template: TextTemplate) -> String? {
            guard template.parts.count == 1, case .field(let key, let formatters) = template.parts[0], formatters.isEmpty else { return nil }
            return key
        }
        switch rule.key {
        case .field(let name): return .attribute(name)
        case .template: return rule.template.flatMap(single).map(SortField.attribute)
        case .title:
            guard let template = first.flatMap({ kind(of: $0) })?.title else { return .title }
            return single(template).map(SortField.attribute)
        }
    }

    /// The row shown at display `position` of the level under `id`.
    /// - Complexity: O(1) once the level's order is known.
    public func child(of id: NodeID, at position: Int) -> NodeID? {
        let children = source.children(of: id)
        if let listed = listedIndices(of: id) { return listed.indices.contains(position) ? children[listed[position]] : nil }
        guard position >= 0, position < children.count else { return nil }
        return children[order(of: id)?.dataIndex(at: position) ?? position]
    }

    /// Where `child` shows in its parent's level (its data index when the level is not sorted).
    public func displayPosition(of child: NodeID) -> Int? {
        guard let parent = source.parent(of: child), let index = source.children(of: parent).position(of: child) else { return nil }
        if let listed = listedIndices(of: parent) { return listed.firstIndex(of: index) }
        return order(of: parent)?.displayPosition(of: index) ?? index
    }

    /// The display position of the row whose data index is `index` in the level under `id`.
    public func displayPosition(ofIndex index: Int, in id: NodeID) -> Int {
        if let listed = listedIndices(of: id) { return listed.firstIndex(of: index) ?? listed.count }
        guard let order = order(of: id), index >= 0, index < order.count else { return index }
        return order.displayPosition(of: index)
    }

    /// The value `rule` sorts `id` by.
    public func sortValue(of id: NodeID, by rule: SortRule, locale: Locale = Locale(identifier: "en_US_POSIX")) -> SortValue {
        let raw: String?
        switch rule.key {
        case .title: raw = title(of: id, template: kind(of: id))
        case .field(let name): raw = lookup(name, of: id)
        case .template: raw = rule.template?.render { lookup($0, of: id) }
        }
        return SortValue(raw, ignoring: schema.sortIgnoring, locale: locale)
    }

    /// What the level under `id` can be sorted by: its rows' attribute keys, in first-seen order
    /// over the first `sample` rows (the web app's Sort menu lists title and these).
    /// - Complexity: O(sample × attributes).
    public func sortFields(of id: NodeID, sample: Int = 50) -> [String] {
        var seen = Set<String>(), keys: [String] = []
        for child in source.children(of: id).prefix(sample) {
            for a in source.attributes(of: child) where a.key.lowercased() != "kind" && seen.insert(a.key.lowercased()).inserted {
                keys.append(a.key)
            }
        }
        return keys
    }
}
