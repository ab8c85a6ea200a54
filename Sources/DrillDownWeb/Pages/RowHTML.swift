import DrillDownCore

/// Renders list rows straight to HTML: the hot path of every level page.
///
/// Escapes every text as Mustache's `{{ }}` does, but without a template lookup per field, so a
/// page of 100 rows costs microseconds.
/// - Complexity: O(total text length).
enum RowHTML {
    /// The `<li>` of one level row.
    static func append(_ row: Row, editing: RowEditing? = nil, to out: inout String) {
        let path = row.path.description
        let href = Links.destination(of: row)
        out += href == nil ? "<li class=\"row disabled\" id=\"n-" : "<li class=\"row\" id=\"n-"
        out += path
        out += "\" data-path=\""
        out += path
        out += "\">"
        openCell(href, to: &out)
        if let image = Links.image(row.image) {
            out += "<img class=\"thumb\" src=\""
            escape(image, into: &out)
            out += "\" alt=\"\" width=\"44\" height=\"44\">"
        }
        appendText(row, to: &out)
        if href == nil, editing == nil, case .action(let name) = row.select {
            out += "<span class=\"action-badge\" title=\"Start the server with --editable to run actions\">▶ "
            escape(name, into: &out)
            out += "</span>"
        }
        if row.drills { out += "<span class=\"chevron\" aria-hidden=\"true\"></span>" }
        out += href == nil ? "</span>" : "</a>"
        if row.hasDetailButton {
            out += "<a class=\"info\" href=\"/d/"
            out += path
            out += "\" aria-label=\"Details of "
            escape(row.title, into: &out)
            out += "\">i</a>"
        }
        if let editing { appendEditing(row, editing, to: &out) }
        out += "</li>\n"
    }

    /// The `<li role="treeitem">` of one outline row; `toggle` is the URL that flips it (`nil` for leaves).
    static func appendTreeItem(
        _ row: Row, depth: Int, expanded: Bool, toggle: String?, focused: Bool, to out: inout String
    ) {
        let path = row.path.description
        let href = Links.destination(of: row)
        out += "<li class=\"row treeitem d\(min(depth, 16))"
        if href == nil { out += " disabled" }
        if focused { out += " focused" }
        out += "\" role=\"treeitem\" aria-level=\"\(depth)\""
        if toggle != nil { out += expanded ? " aria-expanded=\"true\"" : " aria-expanded=\"false\"" }
        if focused { out += " aria-selected=\"true\"" }
        out += " id=\"n-\(path)\" data-path=\"\(path)\">"
        if let toggle {
            out += expanded ? "<a class=\"disclosure open\" href=\"" : "<a class=\"disclosure\" href=\""
            escape(toggle, into: &out)
            out += "\" tabindex=\"-1\" aria-hidden=\"true\"></a>"
        } else {
            out += "<span class=\"disclosure leaf\" aria-hidden=\"true\"></span>"
        }
        openCell(href, to: &out)
        appendText(row, to: &out)
        out += href == nil ? "</span></li>\n" : "</a></li>\n"
    }

    /// Opens a row's cell: a link to `href`, or a disabled span when selecting does nothing.
    static func openCell(_ href: String?, to out: inout String) {
        if let href {
            out += "<a class=\"cell\" href=\""
            escape(href, into: &out)
            out += "\">"
        } else {
            out += "<span class=\"cell\" aria-disabled=\"true\">"
        }
    }

    /// A row's title and subtitle.
    static func appendText(_ row: Row, to out: inout String) {
        out += "<span class=\"text\"><span class=\"row-title\">"
        escape(row.title, into: &out)
        out += "</span>"
        if !row.subtitle.isEmpty {
            out += "<span class=\"row-subtitle\">"
            escape(row.subtitle, into: &out)
            out += "</span>"
        }
        out += "</span>"
    }

    /// The rows of one page.
    static func list(_ rows: [Row], editing: RowEditing? = nil) -> String {
        var out = ""
        out.reserveCapacity(rows.count * 256)
        for row in rows { append(row, editing: editing, to: &out) }
        return out
    }

    /// Appends `text` with `& < > " '` escaped, as Mustache's HTML escaping does.
    static func escape(_ text: String, into out: inout String) {
        var needs = false
        for b in text.utf8 where b == 38 || b == 60 || b == 62 || b == 34 || b == 39 {
            needs = true
            break
        }
        guard needs else {
            out += text
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
    }
}
