import DrillDownCore

/// The inputs of a ``FieldForm``: one labelled input per field, typed by its ``FieldType``, for
/// the detail's Edit mode, the Add page and the Add dialog. Each input is named `f.KEY`; in Edit
/// mode a hidden `o.KEY` holds the text the form showed, so only changed fields are submitted.
/// The server reads and checks what is typed (through the form); the inputs only choose the
/// keyboard and the control:
///
/// | field type | input |
/// |---|---|
/// | text, data | text (a text area when the value has several lines) |
/// | integer, number | text with a numeric keyboard (`inputmode`), never `type=number`, which drops what it cannot read |
/// | boolean | checkbox |
/// | date | `type=date` for a day (text for a date with a time) |
/// | duration | text, `m:ss` |
/// | choice | select |
/// | url | `type=url` |
///
/// A required field is marked (`*`, and `required` for assistive technology; the form has
/// `novalidate`, so the server's message is the one shown). A refused field carries
/// `aria-invalid` and its message below it (`PREFIX-field-N-error`).
struct FieldInputs {
    let form: FieldForm
    /// Whether the form edits an existing row (with `o.KEY` originals) rather than adding one.
    let editing: Bool
    /// The start of every input's id: `PREFIX-field-N`.
    let idPrefix: String
    /// The id of the title field's input (the tests' and scripts' handle on it).
    var titleID: String?
    /// What was typed, by field key, shown instead of the current values after a refusal.
    var typed: [String: String]?
    /// The refusal to show next to its field.
    var error: EditError?

    /// The id of the field's input.
    func inputID(_ index: Int, _ field: Field) -> String {
        if field.isTitle, let titleID { return titleID }
        return "\(idPrefix)-field-\(index)"
    }

    /// Whether the refusal names a field of this form (else it is shown above the fields).
    var errorIsOnAField: Bool {
        guard let key = error?.field?.lowercased() else { return false }
        return form.fields.contains { $0.key.lowercased() == key }
    }

    func html() -> String {
        var out = ""
        for (index, field) in form.fields.enumerated() { append(field, index: index, to: &out) }
        return out
    }

    /// Whether any field is required (the form then explains the mark).
    var hasRequired: Bool { form.fields.contains { $0.required && $0.editable } }

    func append(_ field: Field, index: Int, to out: inout String) {
        let id = inputID(index, field)
        let shown = form.text(of: field)
        let text = typed?[field.key] ?? shown
        let refused = error?.field.map { $0.lowercased() == field.key.lowercased() } ?? false
        out += "<div class=\"field-row field-\(field.type.rawValue)\" data-key=\""
        RowHTML.escape(field.key, into: &out)
        out += "\"><label class=\"field-label\" for=\"\(id)\">"
        RowHTML.escape(field.readingLabel, into: &out)
        if field.required && field.editable { out += "<span class=\"required-mark\" aria-hidden=\"true\">*</span>" }
        out += "</label>"
        var attributes = " id=\"\(id)\" name=\"f."
        RowHTML.escape(field.key, into: &attributes)
        attributes += "\""
        if field.required && field.editable { attributes += " required" }
        if !field.editable { attributes += " readonly" }
        if field.isTitle, !editing { attributes += " autofocus maxlength=\"1000\"" }
        if refused { attributes += " aria-invalid=\"true\" aria-describedby=\"\(id)-error\"" }
        switch field.type {
        case .boolean:
            let on = ["true", "yes", "on", "1"].contains(text.lowercased())
            out += "<input type=\"checkbox\" value=\"true\"\(attributes)\(on ? " checked" : "")>"
            if editing {
                // Sent when the box is unchecked (a form's first value of a key wins).
                out += "<input type=\"hidden\" name=\"f."
                RowHTML.escape(field.key, into: &out)
                out += "\" value=\"false\">"
            }
            if editing { appendOriginal(field, ["true", "yes", "on", "1"].contains(shown.lowercased()) ? "true" : "false", to: &out) }
        case .choice:
            out += "<select\(attributes)>"
            var options = field.choices
            if !text.isEmpty, !options.contains(text) { options.insert(text, at: 0) }
            if !field.required || text.isEmpty { out += "<option value=\"\"\(text.isEmpty ? " selected" : "")>—</option>" }
            for option in options {
                out += "<option"
                if option == text { out += " selected" }
                out += ">"
                RowHTML.escape(option, into: &out)
                out += "</option>"
            }
            out += "</select>"
            if editing { appendOriginal(field, shown, to: &out) }
        default:
            if field.type == .text || field.type == .data, text.contains("\n") {
                out += "<textarea rows=\"4\"\(attributes)>"
                RowHTML.escape(text, into: &out)
                out += "</textarea>"
            } else {
                out += "<input\(Self.kind(field, text: text))\(attributes) value=\""
                RowHTML.escape(text, into: &out)
                out += "\" autocomplete=\"off\""
                if let placeholder = Self.placeholder(field) {
                    out += " placeholder=\""
                    RowHTML.escape(placeholder, into: &out)
                    out += "\""
                }
                out += ">"
            }
            if editing { appendOriginal(field, shown, to: &out) }
        }
        if refused, let error {
            out += "<p class=\"field-error\" id=\"\(id)-error\">"
            RowHTML.escape(error.message, into: &out)
            out += "</p>"
        }
        out += "</div>\n"
    }

    func appendOriginal(_ field: Field, _ text: String, to out: inout String) {
        out += "<input type=\"hidden\" name=\"o."
        RowHTML.escape(field.key, into: &out)
        out += "\" value=\""
        RowHTML.escape(text, into: &out)
        out += "\">"
    }

    /// The `type` (and keyboard) of a one-line input.
    static func kind(_ field: Field, text: String) -> String {
        switch field.type {
        case .integer, .number:
            let keyboard = field.type == .integer ? "numeric" : "decimal"
            // Phones' numeric keyboards have no minus sign: only where no value is negative.
            return (field.min ?? -1) >= 0 ? " type=\"text\" inputmode=\"\(keyboard)\"" : " type=\"text\""
        case .date:
            let day = text.isEmpty || (text.count == 10 && ISO8601Text.date(text) != nil)
            return day ? " type=\"date\"" : " type=\"text\""
        case .url: return " type=\"url\" inputmode=\"url\""
        default: return " type=\"text\""
        }
    }

    /// What an empty input shows: the store's default, or the form a value takes.
    static func placeholder(_ field: Field) -> String? {
        if let text = field.defaultText { return text }
        switch field.type {
        case .duration: return "m:ss"
        case .url: return "https://"
        case .date: return "YYYY-MM-DD"
        default: return nil
        }
    }
}
