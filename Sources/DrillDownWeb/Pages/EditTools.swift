import DrillDownCore

/// The edit tools of the outline and columns screens in Edit mode: the selected row's title and
/// path, and links to rename it, add a child to it, move it and delete it. The links open the
/// no-script forms (`/rename/PATH`, `/add/PATH`, `/move/PATH`, `/delete/PATH`) that return to
/// `back`; the script turns them into dialogs and follows the selection in place.
struct EditTools {
    let site: Site
    /// The selected node; `nil` (or the root) offers only adding to the top level.
    let selected: NodeID?
    /// The page the forms return to.
    let back: String
    /// The page Move… and Delete return to: one that does not name the selected node's path,
    /// which the change frees or gives to another node.
    let away: String

    func context() -> [String: Any] {
        let back = RowHTML.percentEncoded(self.back)
        let away = RowHTML.percentEncoded(self.away)
        var c: [String: Any] = ["back": self.back, "away": self.away]
        guard let selected, selected != site.source.root else {
            c["none"] = true
            return c
        }
        let path = site.source.path(of: selected)
        c["selection"] = [
            "title": site.presenter.screenTitle(of: selected), "path": path.description,
            "renameHref": "/rename/\(path)?back=\(back)", "addHref": "/add/\(path)?back=\(back)",
            "moveHref": "/move/\(path)?back=\(away)", "deleteHref": "/delete/\(path)?back=\(away)",
            "deleteAction": "/edit/delete/\(path)",
        ]
        return c
    }
}
