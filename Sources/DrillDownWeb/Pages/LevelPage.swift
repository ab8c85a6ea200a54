import DrillDownCore

/// The level screen (seed 000's one reusable table view): the children of one node.
///
/// A level of up to `virtualThreshold` rows is rendered whole. A larger one renders one page of
/// `pageSize` rows from `offset`, with plain pagination links; the script turns it into a
/// virtualized list fed by `/api/level`.
/// - Complexity: O(pageSize + depth) per request, whatever the level's width.
struct LevelPage {
    let site: Site
    let id: NodeID
    let offset: Int
    /// Edit mode (`?edit=1`): rename, move and delete on every row.
    var editing = false

    func render() -> String {
        let source = site.source
        var nav = Navigator(presenter: site.presenter)
        nav.open(id)
        let path = source.path(of: id)
        let total = source.childCount(of: id)
        let paged = total > site.options.virtualThreshold
        let start = paged ? min(offset, max(0, total - 1)) : 0
        let rows = site.presenter.rows(of: id, offset: start, limit: paged ? site.options.pageSize : total)
        let here = Links.level(path)
        var rowEditing: RowEditing?
        if site.isEditable {
            let csrf = RequestState.current?.csrf ?? ""
            let back = editing ? "\(here)?edit=1" : (start > 0 ? "\(here)?offset=\(start)" : here)
            rowEditing = RowEditing(csrf: csrf, back: back, editing: editing, total: total)
        }
        var extra: [String: Any] = [
            "rowsHTML": RowHTML.list(rows, editing: rowEditing), "total": total, "path": path.description,
            "api": path.isRoot ? "/api/level" : "/api/level/\(path)", "offset": start,
        ]
        if total == 0 { extra["empty"] = true }
        if let rowEditing {
            extra["editBar"] = [
                "isEditing": editing, "editHref": "\(here)?edit=1", "doneHref": here, "back": rowEditing.back,
                "addHref": "\(path.isRoot ? "/add" : "/add/\(path)")?back=\(RowHTML.percentEncoded(rowEditing.back))", "addAction": "/edit/add/\(path)",
                "csrf": rowEditing.csrf,
            ]
        }
        if paged {
            let end = start + rows.count
            var pager: [String: Any] = ["from": start + 1, "to": end, "total": total]
            if start > 0 { pager["prev"] = "\(here)?offset=\(max(0, start - site.options.pageSize))" }
            if end < total { pager["next"] = "\(here)?offset=\(end)" }
            extra["pager"] = pager
            extra["virtual"] = true
        }
        let back = nav.backLabel.map { ($0, Links.level(path.parent)) }
        let chrome = Chrome(screen: "level", title: nav.title, back: back, node: id)
        return site.assets.render("level", chrome.context(site: site, extra: extra))
    }
}
