/// The most frequent values of one field over a level (or a filtered level), with their counts:
/// the web app's facet panel, the CLI's `--facet`, `/api/facets`. Clicking a value filters the
/// level by ``Value/filter``.
public struct Facet: Sendable, Equatable {
    /// One value and the number of rows holding it.
    public struct Value: Sendable, Equatable {
        /// The value's raw text (seconds for a duration).
        public var value: String
        /// How it shows (`6:00` for a duration).
        public var label: String
        /// The rows holding it.
        public var count: Int

        /// Creates a value.
        public init(value: String, label: String? = nil, count: Int) {
            self.value = value
            self.label = label ?? value
            self.count = count
        }
    }

    /// The field's key.
    public var field: String
    /// The most frequent values, most rows first (ties by value), at most the limit asked.
    public var values: [Value]
    /// Rows counted (the level's, or the filter's matches).
    public var rows: Int
    /// Rows without the field.
    public var missing: Int
    /// How many distinct values there are in all.
    public var distinct: Int

    /// Creates a facet.
    public init(field: String, values: [Value], rows: Int, missing: Int, distinct: Int) {
        self.field = field
        self.values = values
        self.rows = rows
        self.missing = missing
        self.distinct = distinct
    }

    /// The facet of `counts` (rows by value): its top `limit` values, most rows first, ties by value.
    public init(field: String, counts: [String: Int], rows: Int, missing: Int, limit: Int) {
        self.init(
            field: field, values: Self.top(counts, limit: limit).map { Value(value: $0.0, count: $0.1) }, rows: rows, missing: missing,
            distinct: counts.count)
    }

    /// The condition that narrows the level to `value`'s rows: `genre=Rock`.
    public func filter(for value: Value) -> Filter {
        .condition(.init(field: field, op: .equal, values: [value.value]))
    }

    /// The top `limit` of `counts`, most rows first, ties by value.
    /// - Complexity: O(n) for n distinct values and a small limit (most are turned away by one
    ///   comparison with the last kept), not a sort of them all.
    static func top(_ counts: [String: Int], limit: Int) -> [(String, Int)] {
        guard limit > 0 else { return [] }
        func before(_ a: (String, Int), _ b: (String, Int)) -> Bool { a.1 != b.1 ? a.1 > b.1 : a.0 < b.0 }
        var best: [(String, Int)] = []
        best.reserveCapacity(limit + 1)
        for entry in counts {
            let item = (entry.key, entry.value)
            if best.count == limit, let last = best.last, !before(item, last) { continue }
            let at = best.firstIndex { before(item, $0) } ?? best.count
            best.insert(item, at: at)
            if best.count > limit { best.removeLast() }
        }
        return best
    }
}
