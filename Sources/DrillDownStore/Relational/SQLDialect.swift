/// Where the SQL of the two databases differs.
package enum SQLDialect: Sendable {
    case sqlite, postgres

    /// Whether NULL sorts after every value in ascending order (PostgreSQL), or before (SQLite).
    var nullsLast: Bool { self == .postgres }

    /// The operator true when two values are equal or both NULL.
    var isSame: String { self == .sqlite ? "IS" : "IS NOT DISTINCT FROM" }

    /// The operator true when two values differ, NULL counting as a value.
    var isNotSame: String { self == .sqlite ? "IS NOT" : "IS DISTINCT FROM" }
}
