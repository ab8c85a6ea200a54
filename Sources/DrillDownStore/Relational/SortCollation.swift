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
