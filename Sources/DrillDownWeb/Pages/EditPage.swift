import DrillDownCore

/// The pages that stand in for the script's dialogs: the Add form (`/add/PATH`, Cancel and Done)
/// and the delete confirmation (`/delete/PATH`).
struct EditPage {
    enum Mode { case add, delete }

    let site: Site
    let id: NodeID
    let mode: Mode
    /// Where Cancel and Done return to, when given and local.
    let back: String?

    func render() -> String {
        let source = site.source
        let path = source.path(of: id)
        let level = mode == .add ? path : path.parent
        var returnTo = Links.level(level)
        if let back, EditRequest.isLocal(back) { returnTo = back }
        let title = site.presenter.screenTitle(of: id)
        let extra: [String: Any] = [
            "isAdd": mode == .add, "isDelete": mode == .delete, "nodeTitle": title,
            "action": "/edit/\(mode == .add ? "add" : "delete")/\(path)", "returnTo": returnTo,
        ]
        let chrome = Chrome(
            screen: mode == .add ? "add" : "delete", title: mode == .add ? "Add to \(title)" : "Delete \(title)?",
            back: ("Cancel", returnTo))
        return site.assets.render("edit", chrome.context(site: site, extra: extra))
    }
}
