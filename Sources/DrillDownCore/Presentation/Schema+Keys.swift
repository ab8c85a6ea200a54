extension Schema {
    /// The keys a schema may use, by place, as the readers spell them. Keys match
    /// case-insensitively (as they are read); any other key is an error that suggests the
    /// nearest of these, so a misspelt `titel:` is never silently ignored.
    public enum Keys {
        /// The top level.
        public static let topLevel = ["title", "root", "titleKeys", "kinds", "actions", "levels", "sortIgnoring"]
        /// A kind's template (`kinds.NAME`).
        public static let template = [
            "title", "subtitle", "image", "children", "childKind", "select", "accessory", "match", "formats", "controls",
            "section", "index", "fields", "sort",
        ]
        /// A field of a kind's form (`kinds.NAME.fields[i]`), see ``Field``.
        public static let field = ["key", "label", "type", "required", "choices", "min", "max"]
        /// A control (`kinds.NAME.controls[i]`): one of the control kinds, naming the attribute it
        /// edits (a button's label), plus a button's `action` and a slider's or stepper's bounds.
        public static let control = ["switch", "slider", "stepper", "button", "action", "min", "max", "step"]
        /// An action's recipe (`actions.NAME`), as ``ActionSet`` runs it.
        public static let action = ["set", "toggle", "increment", "by", "setNow"]
        /// A level of a relational database (`levels[i]`), as DrillDownStore's mapping reads it.
        public static let level = ["table", "title", "key", "parent", "order", "name", "children", "kind", "defaults"]
    }

    /// Throws for the first member of mapping `id` whose key is not in `known`, naming the nearest
    /// known key when one is close.
    /// - Complexity: O(members × known keys × key length²), on the error path only for the last factor.
    static func checkKeys(of id: NodeID, in tree: TreeStore, known: [String], field: String, file: String) throws(SchemaError) {
        guard tree.kind(of: id) == .object else { return }
        let lowered = known.map { $0.lowercased() }
        for member in tree.children(of: id) {
            let key = tree.title(of: member)
            if lowered.contains(key.lowercased()) { continue }
            let hint = Spelling.nearest(to: key, in: known).map { "did you mean '\($0)'?" }
                ?? "expected one of " + known.joined(separator: ", ")
            throw SchemaError(file: file, field: field, message: "unknown key '\(key)' (\(hint))", node: tree.path(of: member))
        }
    }
}

extension TreeStore {
    /// The TreePath of `id`: its position among its siblings, from the root down.
    /// - Complexity: O(depth)
    func path(of id: NodeID) -> TreePath {
        var indices: [Int] = []
        var node = id
        while let parent = parent(of: node) {
            indices.append(position(of: node))
            node = parent
        }
        return TreePath(indices.reversed())
    }
}
