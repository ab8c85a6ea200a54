/// The optional presentation schema: per-kind templates, read from a YAML or JSON file.
///
/// ```yaml
/// title: Music
/// root: artist
/// kinds:
///   artist: { title: "{name}", children: albums, childKind: album }   # album: a kind with defaults
///   song:   { title: "{name}", subtitle: "{length|duration}", select: detail }
/// ```
public struct Schema: Sendable, Equatable {
    /// The root level's title, overriding the document's.
    public var title: String?
    /// The kind of the root level's rows.
    public var rootKind: String?
    /// Templates in the order the schema lists them.
    public var kinds: [Template] = []
    /// Title keys to prefer when reading by the outline convention.
    public var titleKeys: [String] = []
    /// Named actions declared in the schema (used by editing front ends).
    public var actions: [String: [String: String]] = [:]
    /// Leading words that sorting by text skips (`sortIgnoring: ["The "]` sorts "The Dave
    /// Brubeck Quartet" under D), matched ignoring ASCII case.
    public var sortIgnoring: [String] = []

    /// An empty schema: everything inferred.
    public init() {}

    /// The template named `kind`.
    public func template(named kind: String) -> Template? { kinds.first { $0.kind == kind } }

    /// All children keys the kinds declare, for reading the outline convention.
    public var childrenKeys: [String] { kinds.compactMap(\.children) }
}

/// Why a schema cannot be used: where (the field, and the line and column when the file's
/// format has them) and what was expected.
///
/// ```swift
/// // bad.yaml:6:5: schema field 'kinds.artist': unknown key 'titel' (did you mean 'title'?)
/// ```
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The schema file, when known.
    public var file: String
    /// Where in the schema (`kinds.song.select`).
    public var field: String
    /// What was expected.
    public var message: String
    /// The schema document's node at fault (a key's member for an unknown key), when known; a
    /// reader that knows the file's text turns it into ``line`` and ``column``.
    public var node: TreePath?
    /// The 1-based line of ``node`` in the file, when known.
    public var line: Int?
    /// The 1-based column of ``node`` in the file, when known.
    public var column: Int?

    /// Creates an error.
    public init(file: String, field: String, message: String, node: TreePath? = nil, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.field = field
        self.message = message
        self.node = node
        self.line = line
        self.column = column
    }

    /// `file:line:column: schema field 'FIELD': message`, leaving out the parts that are unknown.
    public var description: String {
        var location = file
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        return "\(location): schema field '\(field)': \(message)"
    }
}
