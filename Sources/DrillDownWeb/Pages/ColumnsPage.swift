import DrillDownCore

/// The columns screen (Miller columns, like a file browser's column view): one column per level
/// from the root down to the selected node, and its detail when it does not drill.
///
/// A wide level shows a window of `columnWindow` rows around the selected one.
/// - Complexity: O(depth × columnWindow) per request.
struct ColumnsPage {
    let site: Site
    let id: NodeID
    /// Edit mode (`?edit=1`): links keep it, and the edit tools act on the selected node.
    var editing = false
    static let columnWindow = 200

    /// A columns URL, in Edit mode when the page is.
    func link(_ path: TreePath) -> String { Links.columns(path) + (editing ? "?edit=1" : "") }

    func render() -> String {
        let source = site.source
        var nav = Navigator(presenter: site.presenter)
        nav.open(id)
        let lineage = source.lineage(of: id)
        var columns: [[String: Any]] = []
        let showsDetail = nav.top.isDetail
        let listed = showsDetail ? lineage.dropLast() : lineage[...]
        for (k, node) in listed.enumerated() {
            let selected = k + 1 < lineage.count ? lineage[k + 1] : nil
            columns.append(column(of: node, selected: selected))
        }
        var extra: [String: Any] = ["columns": columns]
        if showsDetail {
            let detail = site.presenter.detail(of: id)
            var d: [String: Any] = [
                "heading": detail.row.title, "href": Links.detail(source.path(of: id)),
                "fields": DetailPage.fieldContexts(detail.fields),
            ]
            if let image = Links.image(detail.row.image) { d["image"] = image }
            if !detail.subtitle.isEmpty { d["subtitle"] = detail.subtitle }
            if let value = detail.value { d["value"] = value.text }
            extra["detail"] = d
        }
        let path = source.path(of: id)
        if site.isEditable {
            let here = link(path)
            let csrf = RequestState.current?.csrf ?? ""
            // + adds to the last column's node: the selection when it has a column, else its parent.
            let target = showsDetail ? path.parent : path
            extra["editBar"] = [
                "isEditing": editing, "editHref": Links.columns(path) + "?edit=1", "doneHref": Links.columns(path), "back": here,
                "addHref": "\(target.isRoot ? "/add" : "/add/\(target)")?back=\(RowHTML.percentEncoded(here))",
                "addAction": "/edit/add/\(target)", "csrf": csrf,
            ]
            if editing { extra["editTools"] = EditTools(site: site, selected: id, back: here, away: link(path.parent)).context() }
        }
        let back = nav.backLabel.map { ($0, link(path.parent)) }
        let chrome = Chrome(screen: "columns", title: nav.title, back: back, node: id)
        return site.assets.render("columns", chrome.context(site: site, extra: extra))
    }

    func column(of node: NodeID, selected: NodeID?) -> [String: Any] {
        let source = site.source
        // Counted as the reader sees the level: rows hidden from them take no place (``Presenter/access``).
        let count = site.presenter.rowCount(of: node)
        let position = selected.flatMap { site.presenter.displayPosition(of: $0) } ?? 0
        let window = Self.columnWindow
        let start = max(0, min(position - window / 2, count - window))
        let rows = site.presenter.rows(of: node, offset: start, limit: window).map { row -> [String: Any] in
            var c: [String: Any] = ["title": row.title, "path": row.path.description, "href": link(row.path)]
            if !row.subtitle.isEmpty { c["subtitle"] = row.subtitle }
            if row.drills { c["drills"] = true }
            if row.id == selected { c["selected"] = true }
            return c
        }
        let path = source.path(of: node)
        var c: [String: Any] = ["title": site.presenter.screenTitle(of: node), "rows": rows, "path": path.description]
        if rows.isEmpty { c["empty"] = true }
        if start > 0 { c["above"] = ["count": start, "href": Links.level(path)] }
        let after = count - start - rows.count
        if after > 0 { c["below"] = ["count": after, "href": "\(Links.level(path))?offset=\(start + rows.count)"] }
        return c
    }
}
