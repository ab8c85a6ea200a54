/// A level checked against the database: real column names, and the SQL that reads it.
struct ResolvedLevel: Sendable {
    /// The level as mapped.
    var level: RelationalMapping.Level
    /// The key column (`rowid` when the table has no `id` and none was named).
    var key: String
    /// The columns shown as attributes: all but the title, key and parent columns.
    var attributeColumns: [String]
    /// Counts the rows under one parent key (or all rows at the first level).
    var countSQL: String
    /// Reads one page: key, title, then the attribute columns; bound to (parent key,) limit, offset.
    var pageSQL: String
    /// Whether the SQL takes the parent's key as its first argument.
    var filtersByParent: Bool
    /// The schema kind of the level's rows.
    var kind: String { level.kind ?? level.name }
}
