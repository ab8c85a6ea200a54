import DrillDownCore

/// The pages that stand in for the script's dialogs: the Add form (`/add/PATH`: the fields of a
/// new child, ``FieldForm``'s, with Cancel and Done),
/// the Rename form (`/rename/PATH`) and the delete confirmation (`/delete/PATH`). Move… has a
/// page of its own, ``MovePickerPage``.
struct EditPage {
    enum Mode { case add, rename, delete }

    let site: Site
    let id: NodeID
    let mode: Mode
    /// Where Cancel and Done return to, when given and local.
    let back: String?
    /// After a refused Add: what was typed, by field key, and the refusal.
    var typed: [String: String]?
    var error: EditError?

    func render() -> String {
        let source = site.source
        let path = source.path(of: id)
        let level = mode == .add ? path : path.parent
        var returnTo = Links.level(level)
        if let back, EditRequest.isLocal(back) { returnTo = back }
        let title = site.presenter.screenTitle(of: id)
        var extra: [String: Any] = [
            "nodeTitle": title, "nodePath": path.description, "returnTo": returnTo,
        ]
        let screen: String
        let heading: String
        switch mode {
        case .add:
            (screen, heading) = ("add", "Add to \(title)")
            extra["isAdd"] = true
            extra["action"] = "/edit/add/\(path)"
            let form = FieldForm(source: source, schema: site.presenter.schema, newChildOf: id)
            let inputs = FieldInputs(form: form, editing: false, idPrefix: "add", titleID: "add-title", typed: typed, error: error)
            extra["addFieldsHTML"] = inputs.html()
            if let error, !inputs.errorIsOnAField { extra["formError"] = error.message }
        case .rename:
            (screen, heading) = ("rename", "Rename \(title)")
            extra["isRename"] = true
            extra["action"] = "/edit/rename/\(path)"
        case .delete:
            (screen, heading) = ("delete", "Delete \(title)?")
            extra["isDelete"] = true
            extra["action"] = "/edit/delete/\(path)"
        }
        let chrome = Chrome(screen: screen, title: heading, back: ("Cancel", returnTo))
        return site.assets.render("edit", chrome.context(site: site, extra: extra))
    }
}
