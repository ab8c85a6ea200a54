/// Why a ``RelationalMapping`` does not fit a database: names the level, the table and the
/// column, and says what was expected.
///
/// ```swift
/// // music.db: level 2 'albums', table 'albums': column 'artist' (parent) does not exist; columns: id, artist_id, title, year
/// ```
public struct MappingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of mismatch it is.
    public enum Problem: String, Sendable, Equatable {
        /// The level's table does not exist.
        case missingTable
        /// A column the level names does not exist in its table.
        case missingColumn
        /// A level below the first has no parent column, or it does not exist.
        case missingParentKey
        /// Following the levels' `children:` comes back to a level already passed.
        case cycle
        /// `children:` names a level that is not defined.
        case unknownLevel
        /// The `levels:` list itself is malformed.
        case invalid
    }

    /// The kind of mismatch.
    public var problem: Problem
    /// The database file (or the schema file for a malformed `levels:` list).
    public var file: String
    /// The level's position in the `levels:` list, from 1.
    public var level: Int
    /// The level's name.
    public var levelName: String
    /// The level's table.
    public var table: String
    /// The column at fault, when there is one.
    public var column: String?
    /// What was found and what was expected.
    public var message: String

    /// Creates an error.
    public init(
        _ problem: Problem, file: String, level: Int, levelName: String, table: String, column: String? = nil, message: String
    ) {
        self.problem = problem
        self.file = file
        self.level = level
        self.levelName = levelName
        self.table = table
        self.column = column
        self.message = message
    }

    public var description: String {
        "\(file): level \(level) '\(levelName)', table '\(table)': \(message)"
    }
}
