import DrillDownCore

/// The detail screen of one node: title, image, every attribute formatted by its template,
/// the leaf's value, and the path as breadcrumbs.
///
/// On an editable server the navigation bar has **Edit** (`/d/PATH?edit=1`): the node's fields
/// (``FieldForm``: a scalar leaf's value, or a row's title and attributes) become inputs in one
/// form posted to `/edit/update/PATH`, with **Cancel** (back to the detail, nothing changed) and
/// **Done** (every changed field as one undoable step) in the bar.
struct DetailPage {
    let site: Site
    let id: NodeID
    /// Edit mode: the fields as inputs.
    var editing = false
    /// After a refused Done: what was typed, by field key, and the refusal.
    var typed: [String: String]?
    var error: EditError?
    /// Opened from the outline: that outline's query (``OutlineState``'s, and `offset=`), which
    /// Back returns to, with this node focused.
    var outline: String?

    func render() -> String {
        let source = site.source
        var nav = Navigator(presenter: site.presenter)
        nav.open(id, detail: true)
        let detail = site.presenter.detail(of: id)
        let path = source.path(of: id)
        var extra: [String: Any] = [
            "heading": detail.row.title,
            "fields": Self.fieldContexts(detail.fields),
            "crumbs": Self.crumbs(nav),
        ]
        if !detail.subtitle.isEmpty { extra["subtitle"] = detail.subtitle }
        if let image = Links.image(detail.row.image) { extra["image"] = image }
        if let value = detail.value { extra["value"] = ["text": value.text, "kind": value.kind.description] }
        if !detail.fields.isEmpty { extra["hasFields"] = true }
        if detail.fields.isEmpty && detail.value == nil { extra["noFields"] = true }
        if detail.row.childCount > 0 {
            extra["children"] = ["count": detail.row.childCount, "href": Links.level(path)]
        }
        var back = nav.backLabel.map { ($0, Links.level(path.parent)) }
        let fromOutline = outline.flatMap { OutlineState.back(from: $0, focusing: path) }
        let keep = fromOutline == nil ? nil : outline.map { "outline=" + RowHTML.percentEncoded($0) }
        if let fromOutline { back = ("Outline", fromOutline) }
        if site.isEditable, let state = RequestState.current {
            let here = Links.detail(path) + (keep.map { "?" + $0 } ?? "")
            let editHref = Links.detail(path) + "?" + ["edit=1", keep].compactMap { $0 }.joined(separator: "&")
            extra["fieldsBar"] = ["isEditing": editing, "editHref": editHref, "cancelHref": here, "back": here, "csrf": state.csrf]
            if editing {
                back = nil
                extra["fieldsForm"] = fieldsForm(path: path, csrf: state.csrf, back: here)
                for key in ["value", "hasFields", "noFields"] { extra[key] = nil }
            }
        }
        let chrome = Chrome(screen: "detail", title: nav.title, back: back, node: id)
        var context = chrome.context(site: site, extra: extra)
        // Opened from the outline, the mode switch shows the outline as the current mode (and leads back to it).
        if let fromOutline, case .object(var modes)? = context[.modes] {
            modes[.isList] = .bool(false)
            modes[.isOutline] = .bool(true)
            modes[.outline] = .text(fromOutline)
            context[.modes] = .object(modes)
        }
        return site.assets.render("detail", context)
    }

    /// The Edit form's context: the inputs of the node's ``FieldForm``, and a refusal that names
    /// no field of it above them.
    func fieldsForm(path: TreePath, csrf: String, back: String) -> [String: Any] {
        let form = FieldForm(source: site.source, schema: site.presenter.schema, node: id)
        let inputs = FieldInputs(form: form, editing: true, idPrefix: "edit", typed: typed, error: error)
        var c: [String: Any] = [
            "action": "/edit/update/\(path)", "back": back, "csrf": csrf, "inputsHTML": inputs.html(),
            "heading": form.isValue ? "Value" : "Fields",
        ]
        if inputs.hasRequired { c["hasRequired"] = true }
        if let error, !inputs.errorIsOnAField { c["formError"] = error.message }
        return c
    }

    /// The attributes as the detail and the columns' detail list them: label, formatted text, and
    /// a date's ISO 8601 text for a `<time datetime>` the script shows in the reader's locale.
    static func fieldContexts(_ fields: [DetailField]) -> [[String: Any]] {
        fields.map { f in
            var c: [String: Any] = ["key": f.key, "label": f.label, "text": f.text]
            if case .date(let iso) = f.style { c["date"] = ["iso": iso, "text": f.text] }
            return c
        }
    }

    /// Every screen from the root to this detail, each a link (the last is the current page).
    static func crumbs(_ nav: Navigator) -> [[String: Any]] {
        let screens = nav.stack
        return zip(screens, nav.breadcrumbs).enumerated().map { i, pair in
            let (screen, crumb) = pair
            var c: [String: Any] = ["title": crumb.title, "href": screen.isDetail ? Links.detail(crumb.path) : Links.level(crumb.path)]
            if i == screens.count - 1 { c["current"] = true }
            return c
        }
    }
}
