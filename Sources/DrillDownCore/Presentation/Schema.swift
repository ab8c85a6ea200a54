/// The optional presentation schema: per-kind templates, read from a YAML or JSON file.
///
/// ```yaml
/// title: Music
/// root: artist
/// kinds:
///   artist: { title: "{name}", children: albums, childKind: album }
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

    /// An empty schema: everything inferred.
    public init() {}

    /// The template named `kind`.
    public func template(named kind: String) -> Template? { kinds.first { $0.kind == kind } }

    /// All children keys the kinds declare, for reading the outline convention.
    public var childrenKeys: [String] { kinds.compactMap(\.children) }
}

/// Why a schema cannot be used.
public struct SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The schema file, when known.
    public var file: String
    /// Where in the schema (`kinds.song.select`).
    public var field: String
    /// What was expected.
    public var message: String

    public var description: String { "\(file): schema field '\(field)': \(message)" }
}
