/// Filters and facets on a document in one pass over the level, each key lowered once rather than
/// per row (``Source/attribute(_:of:)`` lowers its key at every call): a facet of a 1M-row level
/// is a few tens of milliseconds in a release build. Tests of the title, the kind or a leaf's value
/// go through the presenter's scan (`nil`).
extension DocumentSource {
    public func matchingIndices(ofChildren id: NodeID, where filter: BoundFilter) -> [Int]? {
        guard Self.readsMembers(filter.tests) else { return nil }
        var out: [Int] = []
        for (index, child) in children(of: id).enumerated() where filter.matches({ memberText($0.loweredKey, of: child) }) {
            out.append(index)
        }
        return out
    }

    public func facet(ofChildren id: NodeID, field: BoundFilter.Test, where filter: BoundFilter?, limit: Int) -> Facet? {
        guard Self.readsMembers([field] + (filter?.tests ?? [])) else { return nil }
        var counts: [String: Int] = [:]
        var rows = 0, missing = 0
        for child in children(of: id) {
            if let filter, !filter.matches({ memberText($0.loweredKey, of: child) }) { continue }
            rows += 1
            if let text = memberText(field.loweredKey, of: child) { counts[text, default: 0] += 1 } else { missing += 1 }
        }
        return Facet(field: field.key, counts: counts, rows: rows, missing: missing, limit: limit)
    }

    /// Whether every test reads an attribute (not the title, the kind or a leaf's value).
    static func readsMembers(_ tests: [BoundFilter.Test]) -> Bool {
        tests.allSatisfy { test in
            let lowered = test.key.lowercased()
            return !test.isTitle && !BoundFilter.implied.contains(lowered) && lowered != "value" && !test.loweredKey.isEmpty
        }
    }

    /// What ``attribute(_:of:)`` reads for the already lowered key `key` (`nil` for a null).
    func memberText(_ key: [UInt8], of id: NodeID) -> String? {
        guard tree.kind(of: id) == .object else { return nil }
        for member in tree.children(of: id) where tree.keyEquals(member, lowercased: key) {
            let value = summary(of: member)
            return value.kind == .null ? nil : value.text
        }
        return nil
    }
}
