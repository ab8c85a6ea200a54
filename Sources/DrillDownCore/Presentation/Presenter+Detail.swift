extension Presenter {
    /// The detail view of `id`: its attributes labelled and formatted by the row's fields and
    /// the kind's formatters (``DetailField``), without the `kind` bookkeeping attribute.
    public func detail(of id: NodeID) -> Detail {
        let template = kind(of: id)
        let row = row(for: id)
        let attributes = source.attributes(of: id)
        let form = attributes.isEmpty ? nil : FieldForm(source: source, schema: schema, node: id)
        var fields: [DetailField] = []
        for a in attributes {
            if let kind = row.kind, a.key.lowercased() == "kind", a.value.text == kind { continue }
            let field = form?.fields.first { !$0.isTitle && $0.key.caseInsensitiveCompare(a.key) == .orderedSame }
            let formats = template?.formats[a.key] ?? inferredFormats(a.key, template)
            fields.append(DetailField(key: a.key, value: a.value, field: field, formats: formats))
        }
        var subtitle = row.subtitle
        if let keys = template?.subtitle?.keys, !keys.isEmpty,
            keys.allSatisfy({ k in fields.contains { $0.key.caseInsensitiveCompare(k) == .orderedSame } })
        {
            subtitle = ""
        }
        return Detail(row: row, fields: fields, value: source.value(of: id), subtitle: subtitle)
    }
}
