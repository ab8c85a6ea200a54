import Foundation
import DrillDownCore

/// What an editable level adds to each row: its controls as small forms (switch, slider,
/// stepper, buttons, and the action of a `select: action:NAME` row) and, in Edit mode, the row
/// as iOS edits it (see ``RowHTML/appendEditingRow(_:_:to:)``).
struct RowEditing {
    /// The session's CSRF token, put in every form.
    var csrf: String
    /// The page to return to after a form post.
    var back: String
    /// Whether the level is in Edit mode (`?edit=1`).
    var editing: Bool
    /// The number of rows in the level, to disable Up on the first and Down on the last.
    var total: Int
    /// Whether the rows can be put in another order (`false` on a level ordered by its key or a
    /// `sort:`): without it a row has no reorder control.
    var reorderable = true
}

extension RowHTML {
    /// Appends the row's controls (before its closing `</li>`).
    static func appendEditing(_ row: Row, _ editing: RowEditing, to out: inout HTML) {
        let path = row.path.description
        if case .action(let name) = row.select {
            out += "<div class=\"row-controls\">"
            formStart("/edit/run/\(path)", editing, extraClass: "action-form", to: &out)
            out += "<input type=\"hidden\" name=\"action\" value=\""
            out.appendEscaped(name)
            out += "\"><button type=\"submit\" class=\"small action-button\">▶ "
            out.appendEscaped(name)
            out += "</button></form></div>"
        }
        if !row.controls.isEmpty {
            out += "<div class=\"row-controls\">"
            for (index, bound) in row.controls.enumerated() {
                appendControl(bound, index: index, path: path, row: row, editing, to: &out)
            }
            out += "</div>"
        }
    }

    /// A row in Edit mode, as iOS shows it, on one line: a red ⊖ (the Delete page; with the
    /// script, it slides in the row's Delete button), the title (the Rename page; with the
    /// script, edited in place), the row's controls, Move… (the Move page) and, on a level
    /// whose order is the user's, the reorder handle (with the script: drag, or a keyboard
    /// grab; without it, ↑ and ↓ buttons). Ends the `<li>`.
    static func appendEditingRow(_ row: Row, _ editing: RowEditing, to out: inout HTML) {
        let path = row.path.description
        let back = percentEncoded(editing.back)
        out += "<a class=\"delete-toggle\" href=\"/delete/\(path)?back="
        out.appendEscaped(back)
        out += "\" aria-label=\"Delete "
        out.appendEscaped(row.title)
        out += "\" data-title=\""
        out.appendEscaped(row.title)
        out += "\"></a><a class=\"cell rename-cell\" href=\"/rename/\(path)?back="
        out.appendEscaped(back)
        out += "\"><span class=\"visually-hidden\">Rename </span>"
        appendImage(row, to: &out)
        appendText(row, to: &out)
        out += "</a>"
        appendEditing(row, editing, to: &out)
        out += "<a class=\"move-link\" href=\"/move/\(path)?back="
        out.appendEscaped(back)
        out += "\" aria-label=\"Move "
        out.appendEscaped(row.title)
        out += "…\">Move…</a>"
        formStart("/edit/delete/\(path)", editing, extraClass: "delete-form", to: &out)
        out += "<button type=\"submit\" class=\"delete-confirm\" aria-label=\"Delete "
        out.appendEscaped(row.title)
        out += " and everything under it\">Delete</button></form>"
        if editing.reorderable {
            let last = row.path.indices.last ?? 0
            formStart("/edit/move/\(path)", editing, extraClass: "reorder-form", to: &out)
            out += "<button type=\"submit\" name=\"direction\" value=\"up\" class=\"step move-up\" aria-label=\"Move "
            out.appendEscaped(row.title)
            out += last > 0 ? " up\">↑</button>" : " up\" disabled>↑</button>"
            out += "<button type=\"submit\" name=\"direction\" value=\"down\" class=\"step move-down\" aria-label=\"Move "
            out.appendEscaped(row.title)
            out += last < editing.total - 1 ? " down\">↓</button>" : " down\" disabled>↓</button>"
            out += "<button type=\"button\" class=\"drag-handle\" aria-label=\"Reorder "
            out.appendEscaped(row.title)
            out += "\" aria-describedby=\"reorder-help\" aria-pressed=\"false\"></button></form>"
        }
        out += "</li>\n"
    }

    static func appendControl(_ bound: BoundControl, index: Int, path: String, row: Row, _ editing: RowEditing, to out: inout HTML) {
        let control = bound.control
        formStart("/edit/set/\(path)", editing, extraClass: "control-form control-\(control.kind.rawValue)", to: &out)
        out += "<input type=\"hidden\" name=\"control\" value=\"\(index)\">"
        switch control.kind {
        case .switch:
            let on = bound.value == "true"
            out += "<button type=\"submit\" class=\"switch\" role=\"switch\" aria-checked=\"\(on)\" aria-label=\""
            out.appendEscaped(row.title)
            out += "\"><span class=\"knob\"></span></button>"
        case .slider:
            out += "<input type=\"range\" name=\"value\" min=\"\(number(control.min))\" max=\"\(number(control.max))\" step=\"\(number(control.step))\" value=\""
            out.appendEscaped(bound.value)
            out += "\" aria-label=\""
            out.appendEscaped(control.label)
            out += "\"><button type=\"submit\" class=\"small slider-set\">Set</button>"
        case .stepper:
            out += "<button type=\"submit\" name=\"step\" value=\"-1\" class=\"small\" aria-label=\"Decrease\">−</button><output>"
            out.appendEscaped(bound.value)
            out += "</output><button type=\"submit\" name=\"step\" value=\"+1\" class=\"small\" aria-label=\"Increase\">+</button>"
        case .button:
            out += "<button type=\"submit\" class=\"small action-button\">"
            out.appendEscaped(control.label)
            out += "</button>"
        }
        out += "</form>"
    }

    static func formStart(_ action: String, _ editing: RowEditing, extraClass: String, to out: inout HTML) {
        out += "<form method=\"post\" class=\"js-edit \(extraClass)\" action=\"\(action)\"><input type=\"hidden\" name=\"csrf\" value=\"\(editing.csrf)\"><input type=\"hidden\" name=\"back\" value=\""
        out.appendEscaped(editing.back)
        out += "\">"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(.init(charactersIn: "/-._~"))) ?? ""
    }
}
