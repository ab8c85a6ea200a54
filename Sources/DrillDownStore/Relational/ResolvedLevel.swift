
import DrillDownCore

/// A level checked against the database: real column names, their types, and the pieces of SQL
/// that read and write it.
struct ResolvedLevel: Sendable {
    typealias Column = RelationalColumn

    /// One ordering term: a column and its direction.
    struct OrderTerm: Sendable {
        var column: String
        var descending: Bool
        /// The collation the term sorts with (``SortCollation/name`` for a sorted text column).
        var collation: String? = nil

        /// The term as SQL compares it: the quoted column, with its collation.
        var expression: String { ResolvedLevel.quoted(column) + (collation.map { " COLLATE \($0)" } ?? "") }
    }

    /// The level as mapped.
    var level: RelationalMapping.Level
    /// The level's position in the chain from the root (0 for the first level).
    var depth: Int
    /// The table (or view), as the database spells it.
    var table: String
    /// Whether the table is a view (never written).
    var isView: Bool
    /// The key column (`rowid` when the table has no `id` and none was named).
    var key: String
    /// The title column.
    var title: String
    /// The parent column, if any.
    var parent: String?
    /// The columns shown as attributes: all but the title, key and parent columns.
    var attributeColumns: [String]
    /// Their affinities, in the same order (how their values become scalars).
    var attributeAffinities: [ColumnValue.Affinity]
    /// Every column of the table.
    var columns: [Column]
    /// The ordering: the mapped terms, then the key (so every row has one place).
    var order: [OrderTerm]
    /// The integer column that holds each row's place among its siblings, when the level's
    /// `order:` is exactly one ascending integer column: moves renumber it.
    var positionColumn: String?
    /// Whether reads filter by the parent's key (every level below the first).
    var filtersByParent: Bool
    /// The database's SQL dialect.
    var dialect: SQLDialect
    /// The table's defaults, CHECKs and foreign keys (none for a view).
    var constraints = TableConstraints()
    /// The form of one of its rows (see ``storedFields(newRow:)``), worked out once.
    var fields: [Field] = []
    /// The form of a new row.
    var newRowFields: [Field] = []

    /// The schema kind of the level's rows.
    var kind: String { level.kind ?? level.name }

    /// The table's name quoted for SQL.
    var quotedTable: String { Self.quoted(table) }

    /// The rows of one parent: `WHERE parent = ?` (or `parent IS NULL` at a first level with a parent column).
    var parentFilter: String {
        guard let parent else { return "TRUE" }
        return depth == 0 ? "\(Self.quoted(parent)) IS NULL" : "\(Self.quoted(parent)) = ?"
    }

    /// `SELECT COUNT(*)` of one parent's rows; a first level without a parent column counts
    /// with no WHERE at all, which SQLite answers from the smallest index without reading rows.
    var countSQL: String {
        parent == nil ? "SELECT COUNT(*) FROM \(quotedTable)" : "SELECT COUNT(*) FROM \(quotedTable) WHERE \(parentFilter)"
    }

    /// What a page query selects: key, title, the attribute columns, then the order columns.
    var selection: String {
        ([key, title] + attributeColumns + order.map(\.column)).map(read).joined(separator: ", ")
    }

    /// How a query reads the column `name` (see ``RelationalColumn/read``).
    func read(_ name: String) -> String { column(name)?.read ?? Self.quoted(name) }

    /// The key column as a query reads it.
    var readKey: String { read(key) }

    /// The column named `name` (ASCII case-insensitive), if the table has it.
    func column(_ name: String) -> Column? {
        columns.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// Whether the key is SQLite's rowid (given explicitly when rows are put back).
    var keyIsRowID: Bool { key == "rowid" || column(key)?.isRowID == true }

    static func quoted(_ identifier: String) -> String {
        identifier == "rowid" ? "rowid" : "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
