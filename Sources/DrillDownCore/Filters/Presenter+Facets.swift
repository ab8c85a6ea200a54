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
        let facet: Facet
        if access?.hidesRows != true, let stored = source.facet(ofChildren: id, field: test, where: filter, limit: limit) {
            facet = stored
        } else {
            let children = source.children(of: id)
            facet = listedIndices(of: id).map { listed in count(test, over: listed.lazy.map { children[$0] }, limit: limit) }
                ?? count(test, over: children, limit: limit)
        }
        return labelled(facet, test)
    }

    /// The top `limit` values of `field` over `nodes` (the hits of ``find(where:under:limit:)``),
    /// the field typed as the schema declares it.
    public func facet(over nodes: [NodeID], field key: String, limit: Int = 10) throws(FilterError) -> Facet {
        let probe = try BoundFilter(.condition(.init(field: key, op: .exists, values: [])), fields: declaredFields(), lenient: true)
        guard case .test(let test) = probe.root else { throw FilterError("expected a field", column: 1, expression: key) }
        return labelled(count(test, over: nodes, limit: limit), test)
    }

    /// One pass over `nodes`, counting the raw text of `test`'s field.
    func count(_ test: BoundFilter.Test, over nodes: some Sequence<NodeID>, limit: Int) -> Facet {
        var counts: [String: Int] = [:]
        var rows = 0, missing = 0
        for node in nodes {
            rows += 1
            if let text = filterText(test, of: node) { counts[text, default: 0] += 1 } else { missing += 1 }
        }
        return Facet(field: test.key, counts: counts, rows: rows, missing: missing, limit: limit)
    }

    /// A duration's values labelled `m:ss`.
    func labelled(_ facet: Facet, _ test: BoundFilter.Test) -> Facet {
        guard test.type == .duration else { return facet }
        var facet = facet
        let shown = Field(key: test.key, type: .duration)
        for i in facet.values.indices { facet.values[i].label = shown.display(Scalar(.integer, facet.values[i].value)) }
        return facet
    }
}
