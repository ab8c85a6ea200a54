extension Schema {
    /// Reads a kind's `fields:` list: each entry a mapping with `key` and optionally `label`,
    /// `type` (a ``FieldType``), `required`, `choices`, `min` and `max`.
    static func fields(_ list: NodeID, in tree: TreeStore, field f: String, file: String) throws(SchemaError) -> [Field] {
        func failure(_ id: NodeID, _ field: String, _ message: String) -> SchemaError {
            SchemaError(file: file, field: field, message: message, node: tree.path(of: id))
        }
        guard tree.kind(of: list) == .array else { throw failure(list, f, "expected a list of fields ({ key: NAME, type: … })") }
        var fields: [Field] = []
        for (i, entry) in tree.children(of: list).enumerated() {
            let ff = "\(f)[\(i)]"
            guard tree.kind(of: entry) == .object else { throw failure(entry, ff, "expected a mapping with 'key'") }
            try checkKeys(of: entry, in: tree, known: Keys.field, field: ff, file: file)
            func member(_ key: String) -> NodeID? { tree.member(of: entry, lowercasedKeys: [Array(key.lowercased().utf8)]) }
            func text(_ key: String) throws(SchemaError) -> String? {
                guard let id = member(key) else { return nil }
                guard let v = tree.value(of: id), v.kind != .null else { throw failure(id, "\(ff).\(key)", "expected a text value") }
                return v.text
            }
            func number(_ key: String) throws(SchemaError) -> Double? {
                guard let s = try text(key) else { return nil }
                guard let d = Double(s), d.isFinite else { throw failure(member(key)!, "\(ff).\(key)", "expected a number, found '\(s)'") }
                return d
            }
            guard let key = try text("key"), !key.isEmpty else { throw failure(entry, ff, "a field needs a 'key' (the attribute it edits)") }
            guard !fields.contains(where: { $0.key.lowercased() == key.lowercased() }) else {
                throw failure(member("key")!, "\(ff).key", "field '\(key)' is declared twice")
            }
            var choices: [String] = []
            if let c = member("choices") {
                guard tree.kind(of: c) == .array, tree.childCount(of: c) > 0 else {
                    throw failure(c, "\(ff).choices", "expected a non-empty list of values")
                }
                choices = tree.children(of: c).compactMap { tree.value(of: $0)?.text }
            }
            var type: FieldType = choices.isEmpty ? .text : .choice
            if let t = try text("type") {
                guard let parsed = FieldType(rawValue: t.lowercased()) else {
                    let names = FieldType.allCases.map(\.rawValue)
                    let hint = Spelling.nearest(to: t, in: names).map { "did you mean '\($0)'?" } ?? "expected one of \(names.joined(separator: ", "))"
                    throw failure(member("type")!, "\(ff).type", "unknown field type '\(t)' (\(hint))")
                }
                type = parsed
            }
            if type == .choice, choices.isEmpty { throw failure(entry, ff, "a choice field needs 'choices'") }
            var required = false
            if let r = try text("required") {
                switch r.lowercased() {
                case "true", "yes": required = true
                case "false", "no": required = false
                default: throw failure(member("required")!, "\(ff).required", "expected true or false, found '\(r)'")
                }
            }
            let (min, max) = (try number("min"), try number("max"))
            if let min, let max, min > max { throw failure(entry, ff, "'min' (\(min)) is above 'max' (\(max))") }
            fields.append(Field(key: key, label: try text("label"), type: type, required: required, choices: choices, min: min, max: max))
        }
        return fields
    }
}
