/// The form of one row: its fields in order with their current values, and the ``Change``s that
/// what people typed into it stands for. Every front end's Edit and Add screens (the web's detail
/// Edit and Add modal, the terminal UI's `e`, the CLI's `set`/`add`) read and submit through it,
/// so fields, types and errors are the same everywhere.
///
/// Where the fields come from, first that applies:
/// 1. the storage's own (``Source/storedFields(of:)``: a relational table's columns), as the
///    schema's kind refines them (``Field/refined(by:)``: a `formats:` duration, a declared label);
/// 2. the schema's `fields:` for the row's kind, followed by attributes the row has but the
///    schema does not declare;
/// 3. the row's attributes, typed by their values (``Field/init(key:inferredFrom:)``); for a new
///    row, the attributes its future siblings share.
///
/// A scalar leaf (a config's `port: 8080`) has one field, its value (``isValue``).
///
/// ```swift
/// let form = FieldForm(source: source, schema: schema, node: id)
/// let changes = try form.changes(["length": "3:43", "composer": ""])   // set length 223, remove composer
/// try await model.apply(changes)
/// let add = try FieldForm(source: source, schema: schema, newChildOf: album)
///     .newNode(["name": "Blue in Green", "length": "5:37"])
/// ```
public struct FieldForm: Sendable {
    /// The row's path (the parent's for a new row).
    public let path: TreePath
    /// The row's kind, when the schema gives it one.
    public let kind: String?
    /// The fields, the title field (``Field/isTitle``) first when the row has a title.
    public let fields: [Field]
    /// The current values by field key (empty for a new row; the title under the title field's key).
    public let values: [String: Scalar]
    /// Whether the node is a scalar leaf, edited as its value: one field keyed `value`.
    public let isValue: Bool
    /// Whether keys the form does not list are taken as new text attributes (a document's rows);
    /// `false` for a leaf and for rows whose storage fixes the fields (a table's columns).
    public let takesOtherKeys: Bool

    /// The key of a scalar leaf's one field.
    public static let valueKey = "value"

    /// The form of the existing node `id`.
    public init(source: any Source, schema: Schema, node id: NodeID) {
        path = id == source.root ? .root : source.path(of: id)
        let template = Presenter(source: source, schema: schema).kind(of: id)
        kind = template?.kind
        let attributes = source.attributes(of: id)
        var values: [String: Scalar] = [:]
        for a in attributes { values[a.key] = a.value }
        // A text value holding JSON has children (its members) and is still edited as its text.
        if let value = source.value(of: id), attributes.isEmpty,
            source.childCount(of: id) == 0 || (source as? EmbeddedJSONSource)?.holdsJSON(id) == true
        {
            isValue = true
            var field = Field(key: Self.valueKey, inferredFrom: value)
            field.label = source.title(of: id)
            if let declared = template?.fields.first(where: { $0.key.lowercased() == Self.valueKey }) {
                field = Self.merged(declared, storedKind: value.kind)
            }
            fields = [field]
            self.values = [Self.valueKey: value]
            takesOtherKeys = false
            return
        }
        isValue = false
        let title = source.title(of: id)
        if let stored = source.storedFields(of: id) {
            takesOtherKeys = false
            fields = stored.map { $0.refined(by: template) }
            for f in stored where f.isTitle { values[f.key] = Scalar(.string, title) }
            self.values = values
            return
        }
        takesOtherKeys = true
        var fields: [Field] = id == source.root ? [] : [Self.titleField(template)]
        if !fields.isEmpty { values[fields[0].key] = Scalar(.string, title) }
        for declared in template?.fields ?? [] where !declared.isTitleKey {
            fields.append(Self.merged(declared, storedKind: values[declared.key]?.kind ?? Self.value(declared.key, in: attributes)?.kind))
        }
        for a in attributes where !fields.contains(where: { $0.key.lowercased() == a.key.lowercased() }) {
            fields.append(Self.inferred(a, template))
        }
        self.fields = fields
        self.values = values
    }

    /// The form of a new child of `parent` (the Add screen): the storage's fields, else the
    /// kind's declared ones, else the attributes the parent's present children have.
    public init(source: any Source, schema: Schema, newChildOf parent: NodeID) {
        path = parent == source.root ? .root : source.path(of: parent)
        values = [:]
        isValue = false
        if let stored = source.storedFields(forNewChildOf: parent) {
            let template = source.kind(ofNewChildOf: parent).flatMap(schema.template(named:))
            takesOtherKeys = false
            kind = template?.kind
            fields = stored.map { $0.refined(by: template) }
            return
        }
        let presenter = Presenter(source: source, schema: schema)
        let template: Template? =
            if parent == source.root {
                schema.rootKind.flatMap(schema.template(named:))
            } else {
                presenter.kind(of: parent)?.childKind.flatMap(schema.template(named:))
            }
        let siblings = source.children(of: parent)
        let sample = siblings.isEmpty ? nil : siblings[siblings.count - 1]
        let kindOfSample = sample.flatMap { presenter.kind(of: $0) }
        let t = template ?? kindOfSample
        kind = t?.kind
        takesOtherKeys = true
        var fields = [Self.titleField(t)]
        for declared in t?.fields ?? [] where !declared.isTitleKey { fields.append(Self.merged(declared, storedKind: nil)) }
        if t?.fields.isEmpty ?? true, let sample, source.value(of: sample) == nil {
            for a in source.attributes(of: sample) where !fields.contains(where: { $0.key.lowercased() == a.key.lowercased() }) {
                var f = Self.inferred(a, t)
                if a.key.lowercased() == "kind" { f.defaultText = a.value.text }
                fields.append(f)
            }
        }
        self.fields = fields
    }

    /// The title field: the schema's declared `title`/`name` field when there is one, else "Title".
    static func titleField(_ template: Template?) -> Field {
        var field = template?.fields.first(where: \.isTitleKey) ?? Field(key: "title", label: "Title")
        field.type = .text
        field.required = true
        field.isTitle = true
        return field
    }

    /// An undeclared attribute's field: typed by its value, or as the kind's `formats:` show it
    /// (`length: duration` is typed and shown as m:ss).
    static func inferred(_ attribute: Attribute, _ template: Template?) -> Field {
        var field = Field(key: attribute.key, inferredFrom: attribute.value)
        let formats = template?.formats.first { $0.key.lowercased() == attribute.key.lowercased() }?.value ?? []
        if formats.contains(.duration), [.integer, .real].contains(attribute.value.kind) {
            field.type = .duration
        } else if formats.contains(.date), attribute.value.kind == .string, ISO8601Text.date(attribute.value.text) != nil {
            field.type = .date
        }
        return field
    }

    static func merged(_ declared: Field, storedKind: ValueKind?) -> Field {
        var field = declared
        if field.storedKind == nil, let storedKind, storedKind != .null { field.storedKind = storedKind }
        return field
    }

    static func value(_ key: String, in attributes: [Attribute]) -> Scalar? {
        attributes.first { $0.key.lowercased() == key.lowercased() }?.value
    }

    /// The field keyed `key` (case-insensitive).
    public func field(_ key: String) -> Field? { fields.first { $0.key.lowercased() == key.lowercased() } }

    /// The title field, when the row has a title.
    public var titleField: Field? { fields.first(where: \.isTitle) }

    /// What a field shows in the form now: its value as people type it (a duration as `m:ss`).
    public func text(of field: Field) -> String { field.display(values[field.key]) }

    // MARK: Submitting

    /// The changes that set the form's fields to `inputs` (text as typed, by field key, any
    /// case): the value of a leaf, the title, and each attribute whose value differs; an empty
    /// optional field removes its attribute. Keys the form has no field for become new attributes
    /// typed as written (``Scalar/init(inferring:)``: `1959` an integer) when the row may take any
    /// (a document's row), and are refused otherwise.
    /// - Throws: an ``EditError`` naming the first refused field; nothing is applied then.
    public func changes(_ inputs: [String: String]) throws(EditError) -> [Change] {
        try changes(inputs.mapValues(Input.text))
    }

    /// What a form submits for one field: text as typed, or a typed value (a JSON number, `true`, `null`).
    public enum Input: Sendable, Equatable {
        /// Text as people type it, read by the field's type.
        case text(String)
        /// A value given with its type, checked against the field.
        case typed(Scalar)
        /// The attribute is removed.
        case unset
    }

    /// ``changes(_:)`` with typed inputs (the JSON API's).
    public func changes(_ inputs: [String: Input]) throws(EditError) -> [Change] {
        var result: [Change] = []
        for (key, input) in inputs.sorted(by: { order(of: $0.key) < order(of: $1.key) }) {
            guard let field = field(key) ?? adHocField(key) else {
                throw EditError("this row has no field '\(key)'; its fields: \(fields.map(\.key).joined(separator: ", "))", at: path, field: key)
            }
            guard field.editable else {
                if case .text(let t) = input, t == text(of: field) { continue }
                throw EditError("'\(field.label)' cannot be changed", at: path, field: field.key)
            }
            let isNew = self.field(key) == nil
            let value: Scalar? =
                switch input {
                case .text(let t) where isNew: t.isEmpty ? nil : Scalar(inferring: t)
                case .text(let t): try field.scalar(from: t, at: path)
                case .typed(let s): try field.accept(s, at: path)
                case .unset: field.required ? try field.scalar(from: "", at: path) : nil
                }
            let current = values[field.key] ?? values.first(where: { $0.key.lowercased() == field.key.lowercased() })?.value
            if value == current, !isNew || value != nil { continue }
            // An empty field over a null (a NULL column, a JSON null) leaves it as it is.
            if value == nil, current?.kind == .null, !isNew { continue }
            if isValue {
                result.append(.setValue(path, value: value ?? Scalar(.null, "")))
            } else if field.isTitle {
                result.append(.updateTitle(path, title: value?.text ?? ""))
            } else {
                if value == nil, current == nil, !isNew { continue }
                result.append(.setAttribute(path, key: current == nil ? field.key : existingKey(field.key), value: value))
            }
        }
        return result
    }

    /// A new row from `inputs` (by field key): its title from the title field and the other
    /// non-empty fields as attributes, each read by its type; every required field must be given
    /// (a field with a stored default may be left empty).
    /// - Throws: an ``EditError`` naming the first missing or refused field.
    public func newNode(_ inputs: [String: String]) throws(EditError) -> NewNode {
        try newNode(inputs.mapValues(Input.text))
    }

    /// ``newNode(_:)`` with typed inputs.
    public func newNode(_ inputs: [String: Input]) throws(EditError) -> NewNode {
        var lowered: [String: Input] = [:]
        for (k, v) in inputs { lowered[k.lowercased()] = v }
        for key in lowered.keys where field(key) == nil {
            if adHocField(key) == nil {
                throw EditError("a new row here has no field '\(key)'; its fields: \(fields.map(\.key).joined(separator: ", "))", at: path, field: key)
            }
        }
        var node = NewNode(title: "")
        for field in fields {
            let input = lowered.removeValue(forKey: field.key.lowercased())
            var value: Scalar?
            switch input {
            case .text(let t)?: value = try field.defaultText != nil && t.isEmpty ? nil : field.scalar(from: t, at: path)
            case .typed(let s)?: value = try field.accept(s, at: path)
            case .unset?, nil:
                if field.required, field.defaultText == nil {
                    throw EditError("'\(field.label)' is required", at: path, field: field.key)
                }
            }
            if field.isTitle {
                node.title = value?.text ?? ""
            } else if let value {
                node.attributes.append(Attribute(key: field.key, value: value))
            }
        }
        for (key, input) in lowered.sorted(by: { $0.key < $1.key }) {
            let field = adHocField(key)!
            let value: Scalar? =
                switch input {
                case .text(let t): t.isEmpty ? nil : Scalar(inferring: t)
                case .typed(let s): try field.accept(s, at: path)
                case .unset: nil
                }
            if let value { node.attributes.append(Attribute(key: key, value: value)) }
        }
        return node
    }

    /// A text field for a key the form does not list, where the row may take any attribute (a
    /// document's row; not a leaf or a table's row).
    func adHocField(_ key: String) -> Field? {
        guard takesOtherKeys, !key.isEmpty else { return nil }
        return Field(key: key)
    }

    func order(of key: String) -> Int { fields.firstIndex { $0.key.lowercased() == key.lowercased() } ?? fields.count }

    func existingKey(_ key: String) -> String { values.keys.first { $0.lowercased() == key.lowercased() } ?? key }
}

extension Field {
    /// Whether a schema's declared field names the row's title (`title` or `name`).
    var isTitleKey: Bool { ["title", "name"].contains(key.lowercased()) || isTitle }
}
