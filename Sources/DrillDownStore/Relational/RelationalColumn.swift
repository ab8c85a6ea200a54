/// One column of a mapped table, as the database describes it.
package struct RelationalColumn: Sendable {
    package var name: String
    /// The declared type (`INTEGER`, `TEXT`, `character varying(40)`, … or empty).
    package var type: String
    /// How values are converted for it (from the declared type, by the database's rules).
    package var affinity: ColumnValue.Affinity
    package var notNull: Bool
    package var hasDefault: Bool
    /// Whether it is SQLite's `INTEGER PRIMARY KEY` (SQLite fills it in).
    package var isRowID: Bool
    /// How a query reads it: the quoted name, or (PostgreSQL types the connection does not decode,
    /// such as dates) the name cast to text.
    package var read: String

    package init(name: String, type: String, affinity: ColumnValue.Affinity, notNull: Bool, hasDefault: Bool, isRowID: Bool = false, read: String? = nil) {
        self.name = name
        self.type = type
        self.affinity = affinity
        self.notNull = notNull
        self.hasDefault = hasDefault
        self.isRowID = isRowID
        self.read = read ?? ResolvedLevel.quoted(name)
    }
}
