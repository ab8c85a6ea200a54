/// Filters and facets on a document in one pass over the level, each key lowered once rather than
/// per row (``Source/attribute(_:of:)`` lowers its key at every call): a facet of a 1M-row level
/// is a few tens of milliseconds in a release build. Tests of the title, the kind or a leaf's value
/// go through the presenter's scan (`nil`).
extension DocumentSource {
    public func matchingIndices(ofChildren id: NodeID, where filter: BoundFilter) -> [Int]? {
        guard let keys = Self.memberKeys(filter.tests) else { return nil }
        var out: [Int] = []
        for (index, child) in children(of: id).enumerated() where filter.matches({ memberText(keys[$0.key] ?? [], of: child) }) {
            out.append(index)
        }
        return out
    }

    public func facet(ofChildren id: NodeID, field: BoundFilter.Test, where filter: BoundFilter?, limit: Int) -> Facet? {
        guard let keys = Self.memberKeys([field] + (filter?.tests ?? [])), let key = keys[field.key] else { return nil }
        var counts: [String: Int] = [:]
        var rows = 0, missing = 0
        for child in children(of: id) {
            if let filter, !filter.matches({ memberText(keys[$0.key] ?? [], of: child) }) { continue }
            rows += 1
            if let text = memberText(key, of: child) { counts[text, default: 0] += 1 } else { missing += 1 }
        }
        return Facet(field: field.key, counts: counts, rows: rows, missing: missing, limit: limit)
    }

    /// The lowered UTF-8 key of each test, or `nil` when a test reads more than an attribute.
    static func memberKeys(_ tests: [BoundFilter.Test]) -> [String: [UInt8]]? {
        var keys: [String: [UInt8]] = [:]
        for test in tests {
            let lowered = test.key.lowercased()
            guard !test.isTitle, !BoundFilter.implied.contains(lowered), lowered != "value" else { return nil }
            keys[test.key] = Array(lowered.utf8)
        }
        return keys
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
