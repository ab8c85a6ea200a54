import Foundation

/// One editable field of a row: an attribute's key, its label, its type and its rules. A kind's
/// fields come from the schema's `fields:` (a form's shape), or are inferred from the attributes a
/// row has (see ``FieldForm``); a relational store derives them from its columns.
///
/// ```yaml
/// song:
///   fields:
///     - { key: name, label: Name, required: true }
///     - { key: length, type: duration }        # shown and typed as m:ss, stored as seconds
///     - { key: genre, choices: [Rock, Jazz, Metal, Blues] }
///     - { key: rating, type: integer, min: 0, max: 5 }
/// ```
///
/// ```swift
/// let length = Field(key: "length", type: .duration)
/// try length.scalar(from: "3:43")        // .integer "223"
/// length.display(Scalar(.integer, "223")) // "3:43"
/// ```
public struct Field: Sendable, Equatable {
    /// The attribute's key.
    public var key: String
    /// What people see; the key when the schema gives none.
    public var label: String
    /// How the value is typed, checked and shown.
    public var type: FieldType
    /// Whether a row must have a value: a new row is refused without one, and it cannot be cleared.
    public var required: Bool
    /// The allowed values of a `choice` field, in order.
    public var choices: [String]
    /// Bounds of a number, integer or duration (seconds), when given.
    public var min: Double?, max: Double?
    /// The value kind to store when the field already holds a value (an inferred field, or the
    /// current value): `9090` typed into a real stays a real, a date field over a JSON string
    /// stays a string. `nil` stores the type's own kind.
    public var storedKind: ValueKind?
    /// Whether the field can be changed (a database's key column cannot).
    public var editable: Bool
    /// Whether the field is the row's title (its name in lists), which a form sets with
    /// ``Change/updateTitle(_:title:)`` rather than as an attribute.
    public var isTitle = false
    /// A default the store fills in when a new row leaves the field empty (a database column's
    /// `DEFAULT`), shown as a placeholder; `nil` when there is none.
    public var defaultText: String?

    /// Creates a field; `label` defaults to the key.
    public init(
        key: String, label: String? = nil, type: FieldType = .text, required: Bool = false, choices: [String] = [],
        min: Double? = nil, max: Double? = nil, storedKind: ValueKind? = nil, editable: Bool = true, defaultText: String? = nil
    ) {
        self.key = key
        self.label = label ?? key
        self.type = choices.isEmpty || type != .text ? type : .choice
        self.required = required
        self.choices = choices
        self.min = min
        self.max = max
        self.storedKind = storedKind
        self.editable = editable
        self.defaultText = defaultText
    }

    /// The field a stored value edits as when no schema declares one: typed by its kind.
    public init(key: String, inferredFrom value: Scalar) {
        self.init(key: key, type: FieldType(inferredFrom: value.kind), storedKind: value.kind == .null ? nil : value.kind)
    }

    // MARK: Reading what people type

    /// The scalar that `text` (as typed in a form, a prompt or on the command line) stands for, or
    /// `nil` for an empty optional field (the attribute is removed).
    /// - Throws: an ``EditError`` naming the field when the text is not a value of its type, is
    ///   out of bounds, not a choice, or empty while required.
    public func scalar(from text: String, at path: TreePath? = nil) throws(EditError) -> Scalar? {
        let t = type == .text ? text : text.trimmingCharacters(in: .whitespacesAndNewlines)
        if t.isEmpty || (required && t.allSatisfy(\.isWhitespace)) {
            guard !required else { throw refusal("is required", at: path) }
            return nil
        }
        let scalar: Scalar
        switch type {
        case .text: scalar = Scalar(.string, text)
        case .integer:
            guard Scalar.isInteger(t) else { throw refusal(text, at: path) }
            scalar = storedKind == .real ? Scalar(.real, t + ".0") : Scalar(.integer, t)
        case .number:
            if Scalar.isInteger(t) {
                scalar = storedKind == .real ? Scalar(.real, t + ".0") : Scalar(.integer, t)
            } else if Scalar.isReal(t) {
                scalar = Scalar(.real, t)
            } else {
                throw refusal(text, at: path)
            }
        case .boolean:
            switch t.lowercased() {
            case "true", "yes", "on", "1": scalar = Scalar(.bool, "true")
            case "false", "no", "off", "0": scalar = Scalar(.bool, "false")
            default: throw refusal(text, at: path)
            }
        case .date:
            guard let date = ISO8601Text.date(t) else { throw refusal(text, at: path) }
            scalar = Scalar(storedKind == .string ? .string : .date, date)
        case .duration:
            guard let seconds = Self.seconds(t) else { throw refusal(text, at: path) }
            scalar = Scalar(.integer, String(seconds))
        case .choice:
            guard let choice = choices.first(where: { $0.caseInsensitiveCompare(t) == .orderedSame }) else {
                throw EditError("'\(label)' takes one of \(choices.joined(separator: ", ")), not '\(text)'", at: path, field: key)
            }
            scalar = Scalar(.string, choice)
        case .url:
            guard let url = URL(string: t), let scheme = url.scheme, !scheme.isEmpty, !t.contains(" "),
                  url.host != nil || scheme == "mailto" || scheme == "tel"
            else { throw refusal(text, at: path) }
            scalar = Scalar(.string, t)
        case .data:
            guard Data(base64Encoded: t) != nil else { throw refusal(text, at: path) }
            scalar = Scalar(.data, t)
        }
        try check(scalar, at: path)
        return scalar
    }

    /// Checks a value given with its type (a JSON number, an action's result, an API's `true`)
    /// against the field and returns it as the field stores it: a text field takes any scalar as
    /// text; others take their own kinds (an integer field an integral real, a date field a string
    /// that reads as a date). `null` clears an optional field.
    /// - Throws: an ``EditError`` naming the field.
    public func accept(_ value: Scalar, at path: TreePath? = nil) throws(EditError) -> Scalar {
        if value.kind == .null {
            guard !required else { throw refusal("is required", at: path) }
            return value
        }
        let stored: Scalar
        switch (type, value.kind) {
        case (.text, _): stored = value.kind == .string ? value : Scalar(.string, value.text)
        case (.integer, .integer), (.duration, .integer): stored = value
        case (.integer, .real), (.duration, .real):
            guard let n = Double(value.text), n == n.rounded(), abs(n) < 1e15 else { throw refusal(value.text, at: path) }
            stored = Scalar(.integer, String(Int64(n)))
        case (.number, .integer), (.number, .real): stored = value
        case (.boolean, .bool): stored = value
        case (.date, .date), (.data, .data): stored = value
        case (.date, .string), (.choice, .string), (.url, .string), (.duration, .string), (.boolean, .string), (.data, .string):
            guard let parsed = try scalar(from: value.text, at: path) else { throw refusal("is required", at: path) }
            return parsed
        default: throw refusal(value.text, at: path)
        }
        try check(stored, at: path)
        return stored
    }

    /// Checks bounds and choices of a value already of the field's kind.
    func check(_ scalar: Scalar, at path: TreePath?) throws(EditError) {
        if type == .choice, !choices.isEmpty, !choices.contains(scalar.text) {
            throw EditError("'\(label)' takes one of \(choices.joined(separator: ", ")), not '\(scalar.text)'", at: path, field: key)
        }
        guard [.integer, .number, .duration].contains(type), min != nil || max != nil, let n = Double(scalar.text) else { return }
        if let min, n < min { throw bounds(scalar, at: path) }
        if let max, n > max { throw bounds(scalar, at: path) }
    }

    func bounds(_ scalar: Scalar, at path: TreePath?) -> EditError {
        let shown = type == .duration ? display(scalar) : scalar.text
        func bound(_ b: Double) -> String { type == .duration ? Formatter.duration.format(Scalar(number: b).text) : Scalar(number: b).text }
        let range = switch (min, max) {
        case (let lo?, let hi?): "from \(bound(lo)) to \(bound(hi))"
        case (let lo?, nil): "at least \(bound(lo))"
        case (nil, let hi?): "at most \(bound(hi))"
        case (nil, nil): ""
        }
        return EditError("'\(label)' takes \(type.expectation) \(range), not '\(shown)'", at: path, field: key)
    }

    func refusal(_ text: String, at path: TreePath?) -> EditError {
        if text == "is required" { return EditError("'\(label)' is required", at: path, field: key) }
        return EditError("'\(label)' takes \(type.expectation), not '\(text)'", at: path, field: key)
    }

    // MARK: Showing

    /// The value as people type it back: a duration as `m:ss`, everything else as its text.
    public func display(_ value: Scalar?) -> String {
        guard let value, value.kind != .null else { return "" }
        return type == .duration ? Formatter.duration.format(value.text) : value.text
    }

    /// Seconds from `m:ss`, `h:mm:ss` or a plain number of seconds.
    static func seconds(_ text: String) -> Int64? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (1 ... 3).contains(parts.count) else { return nil }
        if parts.count == 1 { return Scalar.isInteger(text) ? Int64(text) : nil }
        var total: Int64 = 0
        for (i, part) in parts.enumerated() {
            guard !part.isEmpty, part.count <= (i == 0 ? 9 : 2), part.allSatisfy(\.isASCII), let n = Int64(part), n >= 0 else { return nil }
            if i > 0, n >= 60 { return nil }
            total = total * 60 + n
        }
        return total
    }
}
