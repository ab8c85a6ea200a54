/// Filters and facets on a document in one pass over the level, each key lowered once rather than
/// per row (``Source/attribute(_:of:)`` lowers its key at every call): a facet of a 1M-row level
/// is a few tens of milliseconds in a release build. A number compared with a member written as
/// a plain integer is read from the tree's bytes, with no text made. Tests of the title, the kind
/// or a leaf's value go through the presenter's scan (`nil`).
extension DocumentSource {
    public func matchingIndices(ofChildren id: NodeID, where filter: BoundFilter) -> [Int]? {
        guard Self.readsMembers(filter.tests) else { return nil }
        var out: [Int] = []
        for (index, child) in children(of: id).enumerated() where matches(filter.root, child) {
            out.append(index)
        }
        return out
    }

    /// Whether `child` passes `node`, as ``BoundFilter/matches(_:)`` decides on its members' text.
    func matches(_ node: BoundFilter.Node, _ child: NodeID) -> Bool {
        switch node {
        case .and(let parts): return parts.allSatisfy { matches($0, child) }
        case .or(let parts): return parts.contains { matches($0, child) }
        case .test(let test):
            if test.comparesNumbers, let member = member(test.loweredKey, of: child), tree.kind(of: member) == .integer,
                let number = Self.integer(tree.valueBytes(of: member)), let passes = test.matches(number: number)
            {
                return passes
            }
            return test.matches(memberText(test.loweredKey, of: child))
        }
    }

    /// The member of `id` under the already lowered key `key`.
    func member(_ key: [UInt8], of id: NodeID) -> NodeID? {
        guard tree.kind(of: id) == .object else { return nil }
        return tree.children(of: id).first { tree.keyEquals($0, lowercased: key) }
    }

    /// An integer of up to 15 digits (exact as a `Double`) with an optional minus sign; `nil` for
    /// any other text (which is then compared as ``BoundFilter`` reads text).
    static func integer(_ bytes: TextBytes) -> Double? {
        var i = bytes.startIndex
        guard i != bytes.endIndex else { return nil }
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i = bytes.index(after: i) }
        let digits = bytes.distance(from: i, to: bytes.endIndex)
        guard digits > 0, digits <= 15 else { return nil }
        var n: Int64 = 0
        while i != bytes.endIndex {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            n = n * 10 + Int64(d)
            i = bytes.index(after: i)
        }
        return Double(negative ? -n : n)
    }

    public func facet(ofChildren id: NodeID, field: BoundFilter.Test, where filter: BoundFilter?, limit: Int) -> Facet? {
        guard Self.readsMembers([field] + (filter?.tests ?? [])) else { return nil }
        var counts: [String: Int] = [:]
        var rows = 0, missing = 0
        for child in children(of: id) {
            if let filter, !matches(filter.root, child) { continue }
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
        guard let member = member(key, of: id) else { return nil }
        let value = summary(of: member)
        return value.kind == .null ? nil : value.text
    }
}
