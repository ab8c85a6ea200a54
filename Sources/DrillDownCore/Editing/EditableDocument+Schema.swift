/// Keeping attribute values to the types the schema's row controls give them.
extension EditableDocument {
    /// Refuses a value the node's kind cannot show (see ``checkSchemaType(_:source:of:key:value:at:)``).
    func checkSchemaType(of id: NodeID, key: String, value: Scalar, at path: TreePath) throws(EditError) {
        try Self.checkSchemaType(schema, source: source, of: id, key: key, value: value, at: path)
    }

    /// Refuses a value the node's kind cannot show: a switch's attribute must stay a boolean, a
    /// slider's or stepper's a number within its `min…max`. Kinds come from ``Presenter/kind(of:)``.
    /// Shared by every ``EditingStore`` (documents in memory, database stores).
    public static func checkSchemaType(
        _ schema: Schema, source: any Source, of id: NodeID, key: String, value: Scalar, at path: TreePath
    ) throws(EditError) {
        guard !schema.kinds.isEmpty, let template = Presenter(source: source, schema: schema).kind(of: id) else { return }
        let lowered = key.lowercased()
        if let field = template.fields.first(where: { $0.key.lowercased() == lowered }), !field.isTitleKey {
            _ = try field.accept(value, at: path)
        }
        for control in template.controls where control.kind != .button && control.target.lowercased() == lowered {
            switch control.kind {
            case .switch:
                guard value.kind == .bool else {
                    throw EditError("'\(key)' is a switch of kind '\(template.kind)': it takes true or false, not '\(value.text)'", at: path)
                }
            default:
                let low = Swift.min(control.min, control.max), high = Swift.max(control.min, control.max)
                guard value.kind == .integer || value.kind == .real, let n = value.number, n >= low, n <= high else {
                    throw EditError(
                        "'\(key)' is a \(control.kind.rawValue) of kind '\(template.kind)': it takes a number from \(Scalar(number: low)) to \(Scalar(number: high)), not '\(value.text)'",
                        at: path)
                }
            }
        }
    }

    /// Refuses removing an attribute that the node's kind declares as a required field.
    func checkSchemaRemoval(of id: NodeID, key: String, at path: TreePath) throws(EditError) {
        try Self.checkSchemaRemoval(schema, source: source, of: id, key: key, at: path)
    }

    /// Refuses removing an attribute that the node's kind declares as a required field.
    /// Shared by every ``EditingStore``.
    public static func checkSchemaRemoval(_ schema: Schema, source: any Source, of id: NodeID, key: String, at path: TreePath) throws(EditError) {
        guard !schema.kinds.isEmpty, let template = Presenter(source: source, schema: schema).kind(of: id),
              let field = template.fields.first(where: { $0.key.lowercased() == key.lowercased() }), field.required
        else { return }
        throw EditError("'\(field.label)' is required and cannot be removed", at: path, field: field.key)
    }

    /// The schema's rule for a node that gets its first child (and so a children list): its
    /// kind must name a `children:` key. Returns that key when it is one of `lowercasedKeys` (the
    /// list is made under it), else `nil` (the caller picks the spelling).
    /// - Throws: when the schema gives the node's kind no children.
    public static func schemaChildrenKey(
        _ schema: Schema, source: any Source, of id: NodeID, named name: String, lowercasedKeys: [String], at path: TreePath
    ) throws(EditError) -> String? {
        guard id != source.root, !schema.kinds.isEmpty, let template = Presenter(source: source, schema: schema).kind(of: id) else { return nil }
        guard let children = template.children else {
            throw EditError("\(name) is a '\(template.kind)', and the schema gives that kind no children (it names no `children:` key)", at: path)
        }
        return lowercasedKeys.contains(children.lowercased()) ? children : nil
    }
}
