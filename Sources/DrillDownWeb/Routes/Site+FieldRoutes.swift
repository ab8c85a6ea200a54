import DrillDownCore
import Hummingbird

/// The writes that submit a row's fields through the core's ``FieldForm`` (which reads, checks
/// and types every value; nothing here parses one): `update` (the detail's Edit → Done, and
/// `POST /api/edit/update/PATH`) and `add` (the Add dialog and page, `POST /api/edit/add/PATH`).
extension Site {
    /// Sets the node's fields to the request's ``EditRequest/inputs`` as one undoable step: a
    /// scalar leaf's `value`, or a row's title and attributes (`unset` removes one). Fields whose
    /// value does not change are left alone; nothing changed answers `changed: false`.
    /// - Throws: ``EditError`` naming the refused field (nothing is written then).
    func updateFields(at path: TreePath, _ form: EditRequest, in source: any Source, model: DocumentModel, key: StepKey?) async throws -> [TreePath] {
        guard let id = source.node(at: path) else { throw WebError.notFound("No node at TreePath \(path).") }
        let changes = try FieldForm(source: source, schema: presenter.schema, node: id).changes(form.inputs)
        guard !changes.isEmpty else { return [] }
        return try await model.apply(changes, key: key)
    }

    /// Appends a child made of the request's fields (``FieldForm/newNode(_:)``); `title=` fills
    /// the title field (its text trimmed), whatever that field's key. A form whose every field
    /// is empty adds nothing.
    /// - Throws: ``EditError`` naming the missing or refused field.
    func addNode(at path: TreePath, _ form: EditRequest, in source: any Source, model: DocumentModel, key: StepKey?) async throws -> [TreePath] {
        guard source.node(at: path) != nil else { throw WebError.notFound("No node at TreePath \(path).") }
        let inputs = form.inputs, title = form["title"]
        let given = !(title ?? "").trimmingCharacters(in: .whitespaces).isEmpty || inputs.values.contains {
            if case .text(let t) = $0 { return !t.trimmingCharacters(in: .whitespaces).isEmpty }
            return true
        }
        guard given else { return [] }
        // The form is made inside the step, on the model's own thread and the data as the step
        // writes it: a database's level is read there, never on a request's (a hung database then
        // holds only the model, as every other write does).
        let schema = presenter.schema
        return try await model.apply(deriving: { (data: any Source) throws(EditError) -> [Change] in
            guard let parent = data.node(at: path) else { throw EditError("no node at TreePath \(path)", at: path) }
            let fields = FieldForm(source: data, schema: schema, newChildOf: parent)
            var inputs = inputs
            if let titleField = fields.titleField {
                let typed = inputs.first { $0.key.lowercased() == titleField.key.lowercased() }
                if let title, typed == nil { inputs[titleField.key] = .text(title) }
                if case .text(let text)? = inputs[typed?.key ?? titleField.key] {
                    inputs[typed?.key ?? titleField.key] = .text(text.trimmingCharacters(in: .whitespacesAndNewlines))
                }
            }
            return [.insert(try fields.newNode(inputs), parent: path, index: nil)]
        }, key: key)
    }

    /// The form page of a refused `update` or `add` posted without script, again with what was
    /// typed and the message next to its field (400); `nil` for other writes.
    func refusedForm(_ op: Substring, at path: TreePath, _ form: EditRequest, _ error: EditError, in source: any Source) -> Response? {
        guard op == "update" || op == "add", let id = source.node(at: path) else { return nil }
        var typed: [String: String] = [:]
        for (name, text) in form.fields where name.hasPrefix("f.") { typed[String(name.dropFirst(2))] = text }
        if op == "update" {
            let page = DetailPage(site: self, id: id, editing: true, typed: typed, error: error)
            return Responses.html(page.render(), status: .badRequest)
        }
        if let title = form["title"], let field = FieldForm(source: source, schema: presenter.schema, newChildOf: id).titleField {
            typed[field.key] = typed[field.key] ?? title
        }
        let page = EditPage(site: self, id: id, mode: .add, back: form["back"], typed: typed, error: error)
        return Responses.html(page.render(), status: .badRequest)
    }
}
