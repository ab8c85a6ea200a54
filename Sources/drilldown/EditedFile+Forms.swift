import DrillDown

extension EditedFile {
    /// The form of the node at `path` (its fields and how typed text becomes values).
    func form(of path: TreePath) throws -> FieldForm {
        guard let id = source.node(at: path) else { throw BadInput("\(data.file): no node at TreePath \(path)") }
        return FieldForm(source: source, schema: data.presenter.schema, node: id)
    }

    /// The form of a new child of the node at `path`.
    func newChildForm(of path: TreePath) throws -> FieldForm {
        guard let id = source.node(at: path) else { throw BadInput("\(data.file): no node at TreePath \(path)") }
        return FieldForm(source: source, schema: data.presenter.schema, newChildOf: id)
    }

    /// Runs `body`, a form's reading of what was typed; a refused value is bad input (exit status 1).
    func check<T>(_ body: () throws(EditError) -> T) throws -> T {
        do { return try body() } catch { throw BadInput("\(data.file): \(error.description)") }
    }
}
