/// Filtered levels: every front end shows a level's matching rows through these (the web's
/// `?where=`, the CLI's `--where`, the API), so they agree on which rows match. TreePaths keep
/// naming the data: a matching row's path is its place among all its siblings.
extension Presenter {
    /// This presenter with the level under `id` showing only the rows `filter` matches (`nil`:
    /// every row again). The filter is bound to the level's fields (``fields(of:)``); other
    /// levels keep theirs.
    /// - Throws: a ``FilterError`` for an unknown field or a value its field does not take.
    public func filtering(_ id: NodeID, by filter: Filter?) throws(FilterError) -> Presenter {
        var copy = self
        copy.levelFilters[id] = try filter.map { f throws(FilterError) in try bind(f, to: id) }
        return copy
    }

    /// The filter ``filtering(_:by:)`` set on the level under `id`, bound to its fields.
    public func filter(of id: NodeID) -> BoundFilter? { levelFilters.isEmpty ? nil : levelFilters[id] }

    /// `filter` bound to the fields of the level under `id`.
    public func bind(_ filter: Filter, to id: NodeID) throws(FilterError) -> BoundFilter {
        var fields = fields(of: id)
        let missing = filter.conditions.filter { c in !BoundFilter.implied.contains(c.field.lowercased()) && !fields.contains { $0.key.lowercased() == c.field.lowercased() } }
        if !missing.isEmpty {
            // Rows of a document level need not share their keys: a key some row has is a field.
            let keys = Set(missing.map { $0.field.lowercased() })
            var found = Set<String>()
            for child in source.children(of: id) {
                for key in keys where !found.contains(key) && source.attribute(key, of: child) != nil {
                    found.insert(key)
                    if let value = source.attribute(key, of: child) { fields.append(Field(key: key, inferredFrom: value)) }
                }
                if found.count == keys.count { break }
            }
        }
        return try BoundFilter(filter, fields: fields)
    }

    /// The fields of the level under `id` that a filter or a facet can name: the storage's or the
    /// schema's fields of its first row, then keys other sampled rows have (`title` is implied).
    /// - Complexity: O(sample × attributes).
    public func fields(of id: NodeID, sample: Int = 50) -> [Field] {
        let children = source.children(of: id)
        guard let first = children.first else { return [] }
        var fields = FieldForm(source: source, schema: schema, node: first).fields
        var seen = Set(fields.map { $0.key.lowercased() })
        for child in children.prefix(sample) {
            for a in source.attributes(of: child) where seen.insert(a.key.lowercased()).inserted {
                fields.append(FieldForm.inferred(a, kind(of: child)))
            }
        }
        return fields
    }

    /// The raw text `test` compares for `id`: the field's attribute (`nil` for a null), else the
    /// row's title (for `title` or the title's field), its kind (`kind`) or its value (`value`).
    func filterText(_ test: BoundFilter.Test, of id: NodeID) -> String? {
        // A null (a database's NULL, a document's null) is no value, as SQL has it.
        if let a = source.attribute(test.key, of: id) { return a.kind == .null ? nil : a.text }
        if test.isTitle { return title(of: id, template: kind(of: id)) }
        switch test.key.lowercased() {
        case "value": return source.value(of: id)?.text
        case "kind": return kind(of: id)?.kind
        default: return nil
        }
    }

    /// Whether `id` matches `filter`.
    public func matches(_ id: NodeID, _ filter: BoundFilter) -> Bool { filter.matches { filterText($0, of: id) } }

    /// The data indices of the rows of the level under `id` that `filter` matches, ascending: the
    /// store's answer (a database's `WHERE`) when it gives one, else a scan of the level; cached
    /// per level and filter in ``orders`` (one snapshot of the data).
    /// - Complexity: O(n) for a level of n rows the first time, O(1) after.
    public func matchingIndices(of id: NodeID, _ filter: BoundFilter) -> [Int] {
        orders.matches(of: id, filter) {
            if let stored = source.matchingIndices(ofChildren: id, where: filter) { return stored }
            let children = source.children(of: id)
            var out: [Int] = []
            for (index, child) in children.enumerated() where matches(child, filter) { out.append(index) }
            return out
        }
    }

    /// The filtered level's data indices in display order; `nil` when the level has no filter.
    func filteredIndices(of id: NodeID) -> [Int]? {
        guard let filter = filter(of: id) else { return nil }
        let matching = matchingIndices(of: id, filter)
        guard let order = order(of: id) else { return matching }
        var keep = [Bool](repeating: false, count: order.count)
        for i in matching where i < keep.count { keep[i] = true }
        return order.dataIndices.lazy.map { Int($0) }.filter { keep[$0] }
    }

    /// Nodes at any depth under `id` (not `id` itself) that `filter` matches, in depth-first order,
    /// at most `limit` of them, and how many match in all. The filter is bound leniently: a field
    /// only some kinds have simply does not match the others.
    /// - Complexity: O(nodes under `id`).
    public func find(where filter: Filter, under id: NodeID? = nil, limit: Int = .max) throws(FilterError) -> (hits: [NodeID], total: Int) {
        let start = id ?? source.root
        let bound = try BoundFilter(filter, fields: declaredFields(), lenient: true)
        if let stored = source.matchingNodes(under: start, where: bound, limit: limit) { return stored }
        var hits: [NodeID] = [], total = 0
        var stack = Array(source.children(of: start).reversed())
        while let n = stack.popLast() {
            if matches(n, bound) {
                total += 1
                if hits.count < limit { hits.append(n) }
            }
            let children = source.children(of: n)
            if !children.isEmpty { stack.append(contentsOf: children.reversed()) }
        }
        return (hits, total)
    }

    /// Fields the schema declares on any kind, for typing a search across kinds.
    func declaredFields() -> [Field] {
        var fields: [Field] = []
        for kind in schema.kinds {
            for f in kind.fields where !fields.contains(where: { $0.key.lowercased() == f.key.lowercased() }) { fields.append(f) }
            for (key, formats) in kind.formats where formats.contains(.duration) && !fields.contains(where: { $0.key.lowercased() == key.lowercased() }) {
                fields.append(Field(key: key, type: .duration))
            }
        }
        return fields
    }
}
