import DrillDownCore

/// How the tables of an existing database become levels (seed 001): each level's rows are a
/// table's rows, and below the first level only those whose parent column holds the key of the
/// row drilled into, chained down the path.
///
/// ```swift
/// let mapping = RelationalMapping(levels: [
///     .init(table: "artists", title: "name", key: "id"),
///     .init(table: "albums", title: "title", key: "id", parent: "artist_id", order: ["year"]),
///     .init(table: "songs", title: "name", parent: "album_id", order: ["track"]),
/// ])
/// ```
///
/// In a presentation schema the same mapping is a `levels:` list (see ``init(schema:file:)``):
///
/// ```yaml
/// levels:
///   - { table: artists, title: name, key: id }
///   - { table: albums, title: title, parent: artist_id, key: id, order: year }
///   - { table: songs, title: name, parent: album_id, order: track }
/// ```
///
/// Levels follow each other in the list unless one names the next with `children:`; a chain that
/// comes back to a level it has passed is a cycle, which ``RelationalSource`` rejects at open.
///
/// Editing (``RelationalStore``) writes through the same mapping: a new row gets its parent's key
/// in `parent`, its title in `title` and the level's `defaults:` in the columns the change leaves
/// out. A level whose `order:` is one ascending integer column (such as `track`) can be reordered:
/// moves renumber that column among the parent's rows.
public struct RelationalMapping: Sendable, Equatable {
    /// One level: the table its rows come from and the columns that play a part.
    public struct Level: Sendable, Equatable {
        /// The level's name, for `children:` references and messages; the table's name by default.
        public var name: String
        /// The table (or view) whose rows the level lists.
        public var table: String
        /// The column shown as a row's title.
        public var title: String
        /// The column that identifies a row, which the next level's `parent` column refers to;
        /// `id` when the table has one, else SQLite's `rowid`.
        public var key: String?
        /// The column holding the key of the parent level's row (required below the first level).
        public var parent: String?
        /// The ordering, e.g. `["year", "title DESC"]`; the key breaks ties.
        public var order: [String]
        /// The name of the level below this one; the next level in the list when `nil`.
        public var children: String?
        /// The presentation schema's kind for this level's rows; the level's name by default.
        public var kind: String?
        /// Values for columns a new row gets when the change does not give them (column → value
        /// as text, converted to the column's type), e.g. `["length": "0"]` for a NOT NULL column.
        public var defaults: [String: String]
        /// The presentation schema's `sort:` of this level's kind when it runs in SQL (see
        /// ``RelationalMapping/sorted(by:)``): its column leads ``order``.
        public var sort: SortRule?

        /// Creates a level.
        public init(
            name: String? = nil, table: String, title: String, key: String? = nil, parent: String? = nil,
            order: [String] = [], children: String? = nil, kind: String? = nil, defaults: [String: String] = [:]
        ) {
            self.name = name ?? table
            self.table = table
            self.title = title
            self.key = key
            self.parent = parent
            self.order = order
            self.children = children
            self.kind = kind
            self.defaults = defaults
        }
    }

    /// The levels; the first one lists the rows at the root.
    public var levels: [Level]
    /// Leading words a text sort skips (the schema's `sortIgnoring:`), for ``SortCollation``.
    public var sortIgnoring: [String] = []

    /// Creates a mapping.
    public init(levels: [Level]) { self.levels = levels }
}
