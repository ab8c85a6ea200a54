import DrillDownCore
import Foundation
import GRDB

/// The SQLite collation a sorted text column orders by (`ORDER BY "name" COLLATE drilldown_sort`):
/// the same comparison as a sorted document level (``SortValue``: numbers numerically, text with
/// case and accents ignored and the schema's `sortIgnoring:` words skipped, empty text last), so
/// a database level sorts on the server exactly as a document does. Values equal under it
/// (`Apple`, `apple`) are ordered by the level's next terms, then the key.
///
/// It exists only on DrillDown's own connections; an index on `name COLLATE drilldown_sort`
/// cannot be made outside DrillDown, so such a sort reads and sorts the level's rows in SQLite.
/// Numeric columns sort without it and use an ordinary index.
enum SortCollation {
    /// The collation's name in SQL.
    static let name = "drilldown_sort"

    /// The name of the SQL function that gives a text's sort key (see ``key(_:ignoring:)``).
    static let keyFunctionName = "drilldown_sort_key"

    /// A text whose binary order is the order ``SortValue`` gives: numbers first (an order-preserving
    /// hex encoding of the double), then folded text; `nil` for no value. Computed once per row, it
    /// lets SQLite sort a level with a plain binary sort instead of calling a collation per comparison.
    static func key(_ text: String?, ignoring articles: [String]) -> String? {
        switch SortValue(text, ignoring: articles) {
        case .missing: return nil
        case .number(let d):
            let bits = d.bitPattern
            let ordered = d.sign == .minus ? ~bits : bits | (1 << 63)
            let hex = String(ordered, radix: 16)
            return "0" + String(repeating: "0", count: 16 - hex.count) + hex
        case .text(let folded): return "1" + folded
        }
    }

    /// The SQL function `drilldown_sort_key(value)` skipping `articles`.
    static func keyFunction(ignoring articles: [String]) -> DatabaseFunction {
        DatabaseFunction(keyFunctionName, argumentCount: 1, pure: true) { values in
            key(String.fromDatabaseValue(values[0]), ignoring: articles)
        }
    }

    /// The collation skipping `articles`.
    static func collation(ignoring articles: [String]) -> DatabaseCollation {
        DatabaseCollation(name) { a, b in
            let x = SortValue(a, ignoring: articles), y = SortValue(b, ignoring: articles)
            if x == y { return .orderedSame }
            if x == .missing { return .orderedDescending }
            if y == .missing { return .orderedAscending }
            return x < y ? .orderedAscending : .orderedDescending
        }
    }
}
