import Foundation
import DrillDownCore

/// What an editable level adds to each row: its controls as small forms (switch, slider,
/// stepper, buttons, and the action of a `select: action:NAME` row) and, in Edit mode, rename,
/// move up/down, Move… (to another parent), delete and the drag handle.
struct RowEditing {
    /// The session's CSRF token, put in every form.
    var csrf: String
    /// The page to return to after a form post.
    var back: String
    /// Whether the level is in Edit mode (`?edit=1`).
    var editing: Bool
    /// The number of rows in the level, to leave out Up on the first and Down on the last.
    var total: Int
}

extension RowHTML {
    /// Appends the row's controls and edit buttons (before its closing `</li>`).
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
        guard editing.editing else { return }
        let last = row.path.indices.last ?? 0
        out += "<div class=\"row-edit\">"
        formStart("/edit/rename/\(path)", editing, extraClass: "rename-form", to: &out)
        out += "<input name=\"title\" class=\"rename-title\" aria-label=\"New title of "
        out.appendEscaped(row.title)
        out += "\" value=\""
        out.appendEscaped(row.title)
        out += "\" maxlength=\"1000\"><button type=\"submit\" class=\"small\">Rename</button></form>"
        if last > 0 {
            formStart("/edit/move/\(path)", editing, extraClass: "move-form", to: &out)
            out += "<button type=\"submit\" name=\"direction\" value=\"up\" class=\"small move-up\" aria-label=\"Move up\">↑</button></form>"
        }
        if last < editing.total - 1 {
            formStart("/edit/move/\(path)", editing, extraClass: "move-form", to: &out)
            out += "<button type=\"submit\" name=\"direction\" value=\"down\" class=\"small move-down\" aria-label=\"Move down\">↓</button></form>"
        }
        out += "<a class=\"small move-link\" href=\"/move/\(path)?back="
        out.appendEscaped(percentEncoded(editing.back))
        out += "\" aria-label=\"Move "
        out.appendEscaped(row.title)
        out += "…\">Move…</a>"
        out += "<a class=\"small danger delete-link\" href=\"/delete/\(path)?back="
        out.appendEscaped(percentEncoded(editing.back))
        out += "\" data-action=\"/edit/delete/\(path)\" data-title=\""
        out.appendEscaped(row.title)
        out += "\">Delete</a>"
        out += dragHandle
        out += "</div>"
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
