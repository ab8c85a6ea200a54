/// Facets: a level's values of one field with their counts (see ``Facet``).
extension Presenter {
    /// The top `limit` values of `field` over the level under `id`, or over its rows that the
    /// level's filter (``filtering(_:by:)``) matches: the store's `GROUP BY` when it counts, else
    /// one pass over the rows. A duration's labels show as `m:ss`.
    /// - Throws: a ``FilterError`` when the level has no such field.
    /// - Complexity: O(n) for a level of n rows (O(matches) when filtered and already matched).
    public func facet(of id: NodeID, field key: String, limit: Int = 10) throws(FilterError) -> Facet {
        let probe = try bind(.condition(.init(field: key, op: .exists, values: [])), to: id)
        guard case .test(let test) = probe.root else { throw FilterError("expected a field", column: 1, expression: key) }
        let filter = filter(of: id)
        var facet: Facet
        if access?.hidesRows != true, let stored = source.facet(ofChildren: id, field: test, where: filter, limit: limit) {
            facet = stored
        } else {
            let children = source.children(of: id)
            var counts: [String: Int] = [:]
            var rows = 0, missing = 0
            func count(_ child: NodeID) {
                rows += 1
                if let text = filterText(test, of: child) { counts[text, default: 0] += 1 } else { missing += 1 }
            }
            if let listed = listedIndices(of: id) {
                for i in listed { count(children[i]) }
            } else {
                for child in children { count(child) }
            }
            facet = Facet(
                field: test.key, values: Facet.top(counts, limit: limit).map { Facet.Value(value: $0.0, count: $0.1) },
                rows: rows, missing: missing, distinct: counts.count)
        }
        if test.type == .duration {
            let shown = Field(key: test.key, type: .duration)
            for i in facet.values.indices { facet.values[i].label = shown.display(Scalar(.integer, facet.values[i].value)) }
        }
        return facet
    }
}
