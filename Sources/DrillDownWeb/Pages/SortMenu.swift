import DrillDownCore

/// The Sort menu of a level page: a plain GET form (a `<select>` named `sort` and a button), so it
/// works without JavaScript and the order stays in the URL (`/l/0?sort=-year`). It offers the
/// data's order, the title and each field the level's rows have, ascending and descending.
struct SortMenu {
    /// What `?sort=` asks for: `nil` when absent (the schema's `sort:`), `.some(nil)` for `none`
    /// (the data's order), else a rule.
    /// - Throws: ``WebError`` 400 naming the parameter when the rule does not parse.
    static func choice(_ raw: String?) throws(WebError) -> SortRule?? {
        guard let raw, !raw.isEmpty else { return nil }
        if raw.lowercased() == "none" { return .some(nil) }
        do { return .some(try SortRule(String(raw.prefix(200)))) } catch {
            throw .badRequest("'sort' \(error.message); use none, title, a field name, or -FIELD for descending")
        }
    }

    /// The `sort=` query item for `choice` (`nil` when absent).
    static func queryItem(_ choice: SortRule??) -> String? {
        guard let choice else { return nil }
        return "sort=" + Query.encode(choice?.description ?? "none")
    }

    /// The menu's HTML for a level whose rows have `fields` (``Presenter/sortFields(of:sample:)``)
    /// at `here`, with `current` selected.
    /// `hidden` carries other parameters (the filters) through the form.
    static func html(fields: [String], current: SortRule?, here: String, hidden: String = "") -> String {
        var options: [(value: String, label: String)] = [("none", "Data order"), ("title", "Title (A–Z)"), ("-title", "Title (Z–A)")]
        for field in fields where field.lowercased() != "title" {
            options.append((field, "\(field) (ascending)"))
            options.append(("-\(field)", "\(field) (descending)"))
        }
        let selected = current?.description ?? "none"
        if !options.contains(where: { $0.value == selected }) { options.append((selected, selected)) }
        var html = "<form class=\"sort-menu\" id=\"sort-menu\" method=\"get\" action=\""
        RowHTML.escape(here, into: &html)
        html += "\">" + hidden + "<label for=\"sort-select\">Sort</label><select name=\"sort\" id=\"sort-select\">"
        for option in options {
            html += "<option value=\""
            RowHTML.escape(option.value, into: &html)
            html += option.value == selected ? "\" selected>" : "\">"
            RowHTML.escape(option.label, into: &html)
            html += "</option>"
        }
        html += "</select><button type=\"submit\" class=\"button\">Sort</button></form>"
        return html
    }
}
