extension Field {
    /// The field a storage gives (a table's column) as the schema's kind shows it: a field the
    /// kind declares in `fields:` under the same key gives its label, type, choices and bounds
    /// (and may make it required, never optional); else an integer or number the kind's
    /// `formats:` shows as a `duration` is typed as one (`3:43`, stored as 223 seconds). What the
    /// storage says about being editable, defaults and the stored kind is kept.
    ///
    /// ```yaml
    /// song:
    ///   formats: { length: duration }                  # length INTEGER → a duration field
    ///   fields: [{ key: composer, label: Written by }]   # composer TEXT → labelled "Written by"
    /// ```
    public func refined(by template: Template?) -> Field {
        guard let template else { return self }
        var field = self
        let declared = template.fields.first { $0.key.lowercased() == key.lowercased() }
        if let declared {
            if declared.label != declared.key { field.label = declared.label }
            if !isTitle, declared.type != .text {
                field.type = declared.type
                field.choices = declared.choices
            }
            if let min = declared.min { field.min = min }
            if let max = declared.max { field.max = max }
            field.required = required || declared.required
        }
        if declared.map({ $0.type == .text }) ?? true, [.integer, .number].contains(field.type),
            template.formats.first(where: { $0.key.lowercased() == key.lowercased() })?.value.contains(.duration) == true
        {
            field.type = .duration
        }
        return field
    }
}
