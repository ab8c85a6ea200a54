import DrillDownCore

/// The form `e` opens: a leaf's value, or a row's fields (the core's ``FieldForm``), each a text
/// field. Tab or ↓ and Shift-Tab or ↑ move between fields, Enter saves, Esc cancels; what was
/// typed is read by the form's field types, so a refused value names its field and the form stays
/// open on it.
public struct FieldsPrompt: Equatable, Sendable {
    /// The fields, their current values and how typed text becomes changes.
    public let form: FieldForm
    /// What each field holds now, in the form's order.
    public var inputs: [TextField]
    /// The field being typed into.
    public var active = 0

    /// The form with each field holding its current value.
    public init(form: FieldForm) {
        self.form = form
        inputs = form.fields.map { TextField(text: form.text(of: $0)) }
    }

    /// The inputs that differ from the values the form opened with, by field key.
    var edited: [String: String] {
        var result: [String: String] = [:]
        for (field, input) in zip(form.fields, inputs) where input.text != form.text(of: field) { result[field.key] = input.text }
        return result
    }

    public static func == (a: FieldsPrompt, b: FieldsPrompt) -> Bool {
        a.form.path == b.form.path && a.form.fields == b.form.fields && a.inputs == b.inputs && a.active == b.active
    }
}

extension Browser {
    /// `e`: edits the value of a leaf, or the fields of a row, in a form.
    mutating func startEditingFields(_ id: NodeID) {
        let form = FieldForm(source: source, schema: presenter.schema, node: id)
        guard !form.fields.isEmpty else {
            inform(id == source.root ? "The root has no fields to edit" : "“\(presenter.row(for: id).title)” has no fields to edit")
            return
        }
        prompt = .fields(FieldsPrompt(form: form))
    }

    mutating func handleFieldsPrompt(_ p: FieldsPrompt, key: Key) {
        var p = p
        let count = p.inputs.count
        switch key {
        case .escape, .control("c"):
            prompt = nil
            inform("Not changed")
            return
        case .tab, .down: p.active = (p.active + 1) % count
        case .backTab, .up: p.active = (p.active + count - 1) % count
        case .enter:
            submit(p)
            return
        default:
            guard p.inputs[p.active].edit(key) else { return }
        }
        prompt = .fields(p)
    }

    /// Saves what the form holds as one step, or, when the core refuses a value, says why and
    /// puts the cursor on that field.
    mutating func submit(_ p: FieldsPrompt) {
        let form = p.form
        do {
            let changes = try form.changes(p.edited)
            prompt = nil
            guard !changes.isEmpty else {
                inform("Nothing changed")
                return
            }
            let done = form.isValue ? "\(form.fields[0].label) = \(p.inputs[0].text)" : "Saved “\(title(at: form.path))”"
            request(.changes(changes), done: done, focus: form.path, form: p)
        } catch {
            reopen(p, on: error)
            inform(error.description, error: true)
        }
    }

    /// Opens the form again as it was, on the field `error` names (a value the form or the store
    /// refused), unless the row is gone.
    mutating func reopen(_ p: FieldsPrompt, on error: EditError) {
        guard source.node(at: p.form.path) != nil else { return }
        var p = p
        let key = error.field?.lowercased()
        if let i = p.form.fields.firstIndex(where: { $0.key.lowercased() == key }) { p.active = i }
        prompt = .fields(p)
    }

    /// What a field takes, shown dimmed beside it: its type, a choice's choices, a number's bounds.
    static func hint(for field: Field) -> String {
        func bound(_ b: Double?) -> String { b.map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int64($0)) : String($0) } ?? "" }
        var hint = field.type == .choice ? field.choices.joined(separator: "|") : field.type.rawValue
        if field.min != nil || field.max != nil, field.type != .duration { hint += " \(bound(field.min))…\(bound(field.max))" }
        if !field.editable { hint += ", fixed" }
        return hint
    }

    /// The title of the row at `path`, as lists show it.
    func title(at path: TreePath) -> String {
        source.node(at: path).map { presenter.row(for: $0).title } ?? path.description
    }

    /// The form over the body: a heading (or the refusal), then one line per field, its label,
    /// what it holds and, dimmed, its type.
    func drawFields(_ p: FieldsPrompt, in area: Area, frame: inout Frame) {
        let form = p.form
        if let message, message.isError {
            frame.put(message.text, row: area.top, column: area.left + 1, width: area.width - 2, style: Style.bold.colored(1))
        } else {
            let name = title(at: form.path)
            frame.put(form.isValue ? "Edit the value of “\(name)”" : "Edit “\(name)”", row: area.top, column: area.left + 1, width: area.width - 2, style: .bold)
        }
        let labels = form.fields.map { $0.readingLabel + ($0.required ? " *" : "") }
        let labelWidth = min(labels.map(DisplayWidth.of).max() ?? 0, max(6, area.width / 3))
        let first = max(0, p.active - (area.height - 3))
        for (row, i) in (first ..< form.fields.count).prefix(max(0, area.height - 2)).enumerated() {
            let field = form.fields[i]
            let y = area.top + 2 + row
            frame.put(labels[i], row: y, column: area.left + 1, width: labelWidth, style: .bold)
            let x = area.left + labelWidth + 3
            let typeText = Self.hint(for: field)
            let typeWidth = DisplayWidth.of(typeText)
            let room = max(1, area.width - x - typeWidth - 3)
            let end = frame.put(TextFitting.truncateHead(p.inputs[i].text, to: room), row: y, column: x, width: room, style: i == p.active ? .reverse : .plain)
            frame.put(typeText, row: y, column: area.left + area.width - typeWidth - 1, width: typeWidth, style: .dim)
            if i == p.active { frame.cursor = (y, min(end, area.width - 1)) }
        }
    }
}
