/// What a ``Field`` holds, and so how its text is read, checked and shown.
///
/// | type | typed as | stored as |
/// |---|---|---|
/// | `text` | anything | a string |
/// | `integer` | `42`, `-7` | an integer |
/// | `number` | `2.5`, `1e3`, `42` | a real (an integer when the field held one) |
/// | `boolean` | `true`/`false`, `yes`/`no`, `on`/`off`, `1`/`0` | a boolean |
/// | `date` | `2024-05-01` or `2024-05-01T10:30:00Z` | a date (a string where the field held one) |
/// | `duration` | `3:43`, `1:02:05` or seconds `223` | an integer number of seconds, shown `m:ss` |
/// | `choice` | one of the field's `choices` (any case) | a string, spelt as the choice |
/// | `url` | `https://…`, `mailto:…` | a string |
/// | `data` | base64 | data |
public enum FieldType: String, Sendable, Equatable, CaseIterable {
    case text, integer, number, boolean, date, duration, choice, url, data

    /// The type a value of `kind` edits as, when no schema declares one.
    public init(inferredFrom kind: ValueKind) {
        switch kind {
        case .integer: self = .integer
        case .real: self = .number
        case .bool: self = .boolean
        case .date: self = .date
        case .data: self = .data
        case .string, .null, .object, .array: self = .text
        }
    }

    /// What the type expects, for error messages: "an integer", "a date (YYYY-MM-DD)".
    public var expectation: String {
        switch self {
        case .text: "text"
        case .integer: "an integer"
        case .number: "a number"
        case .boolean: "true or false"
        case .date: "a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"
        case .duration: "a duration (m:ss, h:mm:ss or seconds)"
        case .choice: "one of the choices"
        case .url: "a URL (https://…)"
        case .data: "base64 data"
        }
    }
}
