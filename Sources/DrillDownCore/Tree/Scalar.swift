/// A leaf value: its kind and its text (numbers as written, dates in ISO 8601, data in base64).
public struct Scalar: Hashable, Sendable, CustomStringConvertible {
    /// The value's kind; never a container kind.
    public var kind: ValueKind
    /// The value as text.
    public var text: String

    /// Creates a scalar.
    public init(_ kind: ValueKind, _ text: String) {
        self.kind = kind
        self.text = text
    }

    /// The value as a number, when it reads as one.
    public var number: Double? {
        switch kind {
        case .integer, .real, .string: Double(text)
        case .bool: text == "true" ? 1 : 0
        default: nil
        }
    }

    /// The value as a boolean (`true`, `yes`, `1`, `on`), when it reads as one.
    public var bool: Bool? {
        switch text.lowercased() {
        case "true", "yes", "1", "on": true
        case "false", "no", "0", "off", "": false
        default: nil
        }
    }

    public var description: String { text }
}

/// A named scalar shown in a node's detail view, e.g. `length = 343`.
public struct Attribute: Hashable, Sendable {
    /// The key as written in the document.
    public var key: String
    /// The value.
    public var value: Scalar

    /// Creates an attribute.
    public init(key: String, value: Scalar) {
        self.key = key
        self.value = value
    }
}
