/// What kind of value a node holds in the document it was read from.
///
/// The kinds are the union of the JSON, YAML and property-list data models, so that
/// every reader can record what it saw and every writer can restore it.
public enum ValueKind: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// A dictionary / mapping / object: its entries are children, titled by their keys.
    case object
    /// An array / sequence: its elements are children, titled by their index.
    case array
    /// A string scalar.
    case string
    /// An integer scalar, stored as its decimal text.
    case integer
    /// A floating-point scalar, stored as its text.
    case real
    /// `true` or `false`.
    case bool
    /// JSON `null`, YAML `~`.
    case null
    /// A property-list date, stored as ISO 8601 text.
    case date
    /// Property-list data, stored as base64 text.
    case data

    /// Whether nodes of this kind hold children rather than a value.
    @inlinable public var isContainer: Bool { self == .object || self == .array }

    /// The kind with its indefinite article, for messages: "an integer", "a string".
    public var withArticle: String { ([.object, .array, .integer].contains(self) ? "an " : "a ") + description }

    public var description: String {
        switch self {
        case .object: "object"
        case .array: "array"
        case .string: "string"
        case .integer: "integer"
        case .real: "real"
        case .bool: "bool"
        case .null: "null"
        case .date: "date"
        case .data: "data"
        }
    }
}
