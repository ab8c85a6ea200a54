import DrillDown

extension EditedFile {
    /// Prints the resulting TreePath (empty for the root), or a JSON object with its title path,
    /// and its value (a scalar) or fields (a row's attributes) with their kinds.
    func report(_ path: TreePath, json: Bool, title: String? = nil) throws {
        let shownTitle = title ?? source.node(at: path).map { source.levelTitle(of: $0) } ?? ""
        guard json else {
            var out = Out()
            out.line(path.description)
            return out.flush()
        }
        struct Value: Encodable { var key: String, kind: String, value: String? }
        struct Result: Encodable {
            var path: String, titlePath: String?, title: String, file: String, format: String
            var value: Value?, fields: [Value]?
        }
        let node = title == nil ? source.node(at: path) : nil
        let titlePath = node.map { source.titlePath(of: $0) }
        func shown(_ key: String, _ s: Scalar) -> Value { Value(key: key, kind: s.kind.description, value: s.kind == .null ? nil : s.text) }
        let form = node.map { FieldForm(source: source, schema: data.presenter.schema, node: $0) }
        let value = form.flatMap { $0.isValue ? $0.values[FieldForm.valueKey].map { shown(FieldForm.valueKey, $0) } : nil }
        let fields = form.flatMap { $0.isValue ? nil : source.attributes(of: node!).map { shown($0.key, $0.value) } }
        try Out.json(Result(
            path: path.description, titlePath: titlePath, title: shownTitle, file: data.file, format: data.formatName,
            value: value, fields: fields))
    }
}
