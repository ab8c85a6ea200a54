/// A question asked of a level's rows: `length>360`, `genre=Rock`, `kind=song and length>600`,
/// `genre in (Rock, Jazz) or composer~davis`. Every front end (the web's `?where=`, the CLI's
/// `--where`, the API) reads one with ``init(_:)`` and shows its rows through
/// ``Presenter/filtering(_:by:)``; databases turn it into SQL with bound values.
///
/// Operators: `= != < <= > >=`, `~` (contains, case and accents ignored), `in (a, b)`, `exists`;
/// conditions combine with `and` (binds tighter) and `or`, and group with parentheses. A value is
/// a bare word run (`Rock and Roll` needs quotes: `"Rock and Roll"`) or a quoted string. Values
/// are typed by the field when the filter is bound to a level: a duration as `6:00`, a date as
/// `2024-05-01`, a number as `2.5`.
///
/// ```swift
/// let filter = try Filter("length>6:00 and genre in (Rock, Jazz)")
/// let songs = try presenter.filtering(album, by: filter).rows(of: album)
/// ```
public indirect enum Filter: Sendable, Hashable, CustomStringConvertible {
    /// One comparison of a field.
    case condition(Condition)
    /// Every part matches.
    case and([Filter])
    /// Some part matches.
    case or([Filter])

    /// One comparison: `field op value`, `field in (values)` or `field exists`.
    public struct Condition: Sendable, Hashable {
        /// The field's key as written (matched ASCII case-insensitively); `title` is the row's title.
        public var field: String
        /// The comparison.
        public var op: FilterOperator
        /// The value(s) as written: one, several for `in`, none for `exists`.
        public var values: [String]
        /// The 1-based columns of the field and of each value in ``expression``, for errors.
        public var fieldColumn: Int, valueColumns: [Int]
        /// The expression the condition was read from (empty when made in code).
        public var expression = ""

        /// Creates a condition.
        public init(field: String, op: FilterOperator, values: [String], fieldColumn: Int = 1, valueColumns: [Int] = []) {
            self.field = field
            self.op = op
            self.values = values
            self.fieldColumn = fieldColumn
            self.valueColumns = valueColumns.count == values.count ? valueColumns : values.map { _ in fieldColumn }
        }
    }

    /// Parses an expression.
    /// - Throws: a ``FilterError`` with the column where it stops making sense.
    public init(_ text: String) throws(FilterError) {
        var parser = FilterParser(text)
        self = try parser.parse()
    }

    /// The conjunction of `filters` (the web's repeated `where=`): `nil` when there are none.
    public static func all(_ filters: [Filter]) -> Filter? {
        switch filters.count {
        case 0: nil
        case 1: filters[0]
        default: .and(filters)
        }
    }

    /// The conditions, left to right.
    public var conditions: [Condition] {
        switch self {
        case .condition(let c): [c]
        case .and(let parts), .or(let parts): parts.flatMap(\.conditions)
        }
    }

    /// The expression written back; it parses to an equal filter (columns aside).
    public var description: String {
        switch self {
        case .condition(let c):
            let field = FilterParser.quotedIfNeeded(c.field, field: true)
            switch c.op {
            case .exists: return "\(field) exists"
            case .oneOf: return "\(field) in (\(c.values.map { FilterParser.quotedIfNeeded($0) }.joined(separator: ", ")))"
            default: return field + c.op.rawValue + FilterParser.quotedIfNeeded(c.values.first ?? "")
            }
        case .and(let parts): return parts.map { $0.grouped(inside: true) }.joined(separator: " and ")
        case .or(let parts): return parts.map { $0.grouped(inside: false) }.joined(separator: " or ")
        }
    }

    private func grouped(inside and: Bool) -> String {
        if case .or = self, and { return "(\(description))" }
        return description
    }

    public static func == (a: Filter, b: Filter) -> Bool { a.description == b.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
