import DrillDownCore

extension ResolvedLevel {
    /// The form of a row of this level (``Source/storedFields(of:)``), or of a new one: the
    /// table's columns in table order, the title column first (``Field/isTitle``). The parent
    /// column is left out (where the row is says it), and so is the key, except in a new row's
    /// form when the database does not fill it in; a new row's form also leaves out the position
    /// column (`track`), which the store fills with the next place (setting it on a row moves it).
    ///
    /// A column's SQL type gives the field's type (INTEGER → integer, REAL/NUMERIC → number,
    /// BOOLEAN → boolean, DATE/TIMESTAMP → date, BLOB → data, else text); a CHECK `IN (…)` makes it
    /// a choice, a CHECK comparison gives bounds; NOT NULL without a default (the column's, or the
    /// mapping's `defaults:`) makes it required; a default is the field's ``Field/defaultText``.
    func storedFields(newRow: Bool) -> [Field] {
        var fields: [Field] = []
        for column in columns {
            let name = column.name
            if name == parent || (newRow && name == positionColumn) { continue }
            if name == key {
                guard newRow, !column.isRowID, !column.hasDefault, key != "rowid", !isView else { continue }
            }
            fields.append(field(column))
        }
        if let t = fields.firstIndex(where: \.isTitle), t > 0 { fields.insert(fields.remove(at: t), at: 0) }
        return fields
    }

    /// The field of one column.
    func field(_ column: Column) -> Field {
        let mapped = level.defaults.first { $0.key.caseInsensitiveCompare(column.name) == .orderedSame }?.value
        let defaultText = mapped ?? constraints.defaultText(of: column.name)
        let hasDefault = mapped != nil || column.hasDefault
        let isTitle = column.name == title
        var field = Field(
            key: column.name, label: isTitle ? Self.label(column.name) : column.name, type: isTitle ? .text : Self.fieldType(column),
            required: column.notNull && !hasDefault && !column.isRowID,
            storedKind: Self.storedKind(column), defaultText: defaultText)
        field.isTitle = isTitle
        guard !isTitle else { return field }
        let rules = constraints.rules(for: column.name)
        for rule in rules {
            switch rule.condition {
            case .oneOf(let values):
                field.type = .choice
                field.choices = field.choices.isEmpty ? values : field.choices.filter(values.contains)
            case .compared:
                let (lo, hi) = field.type == .integer ? rule.integerBounds : field.type == .number ? rule.numberBounds : (nil, nil)
                if let lo { field.min = Swift.max(field.min ?? lo, lo) }
                if let hi { field.max = Swift.min(field.max ?? hi, hi) }
            case .differs: break
            }
        }
        return field
    }

    /// The title field's label: its column's name, capitalised (`name` → "Name"), as a
    /// document's is "Title". Other fields are labelled by their column's name, as a document's
    /// attributes are by their keys.
    static func label(_ column: String) -> String {
        let spaced = column.replacingOccurrences(of: "_", with: " ")
        return spaced.prefix(1).uppercased() + spaced.dropFirst()
    }

    /// The field type of a column's declared SQL type.
    static func fieldType(_ column: Column) -> FieldType {
        let type = column.type.uppercased()
        if type.hasPrefix("DATE") || type.hasPrefix("TIMESTAMP") { return .date }
        if type.contains("BOOL") { return .boolean }
        switch column.affinity {
        case .integer: return .integer
        case .real, .numeric: return .number
        case .boolean: return .boolean
        case .blob: return type.isEmpty ? .text : .data
        case .text: return .text
        }
    }

    /// The kind a field stores so that typing the same value changes nothing: a REAL column's
    /// `3` is the real 3.0, a date column holds text.
    static func storedKind(_ column: Column) -> ValueKind? {
        if fieldType(column) == .date { return .string }
        return column.affinity == .real ? .real : nil
    }
}
