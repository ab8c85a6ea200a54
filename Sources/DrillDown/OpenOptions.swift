import DrillDownFormats

/// How ``DrillDown/open(_:options:)`` reads data: its schema, format, outline keys and limits.
///
/// ```swift
/// var options = OpenOptions(schemaFile: "music.schema.yaml")
/// options.table = "library"                       // with a postgres:// URL
/// let data = try DrillDown.open("postgres://localhost/music", options: options)
/// ```
public struct OpenOptions: Sendable {
    /// A presentation schema file (YAML or JSON): titles, images, controls, and `levels:` that map
    /// a database's tables.
    public var schemaFile: String?
    /// A schema already read; used instead of ``schemaFile`` (which then only names it in messages).
    public var schema: SchemaFile?
    /// Without a schema: whether `music.schema.yaml` (or `.yml`, `.json`) beside `music.sqlite` is used.
    public var findsSchemaBeside = true
    /// The document format when content and extension are not enough (this also reads an SQLite
    /// file's name as a document's).
    public var format: DocumentFormat?
    /// How far YAML aliases and shared binary property-list objects may expand a document.
    public var expansionLimit = ExpansionLimit.default
    /// Whether a JSON file is read whole or indexed level by level.
    public var index = IndexMode.auto
    /// The key that holds a row's title (outline convention), tried before the schema's and the standard ones.
    public var titleKey: String?
    /// The key that holds a row's children (outline convention), tried before the schema's and the standard ones.
    public var childrenKey: String?
    /// Whether the data is browsed generically (like a JSON viewer), even when it follows the outline convention.
    public var generic = false
    /// With a `postgres://` URL: the tree table to read (default: the URL's `?table=`, else `drilldown`).
    public var table: String?
    /// For a one-off edit of a document file: take the file's lock before reading it and hold it
    /// while the ``OpenedData`` lives, so no other DrillDown writer runs between the read and the
    /// write (its ``OpenedData/model(listen:readOnly:)`` writes under that lock).
    public var holdsFileLock = false
    /// With a `postgres://` URL: the most one database call may take.
    public var databaseTimeout: Duration = .seconds(5)

    /// Options with a schema file (or none) and every other setting at its default.
    public init(schemaFile: String? = nil) {
        self.schemaFile = schemaFile
    }
}
