import DrillDownCore

/// The outline's selection form (`GET /outline/select`), what multi-select and the editing keys
/// do for pages without script: a checkbox per visible row of one outline page (the same rows,
/// state and paging as `/outline`), and buttons that post the checked rows to `/edit/batch` as one
/// step: Delete, Indent, Outdent, Move up, Move down, and Move to a new parent at a position.
///
/// `checked=0.1,2` ticks rows (the script's Move… for a selection comes here with them ticked);
/// `back=` is where the form returns after the change.
struct SelectionPage {
    let site: Site
    let state: OutlineState
    let offset: Int?
    let checked: Set<TreePath>
    let back: String?

    func render() -> String {
        let size = site.options.outlinePageSize
        let slice = OutlinePage.slice(site: site, state: state, offset: offset, focus: nil, limit: size)
        let returnTo = back.flatMap { EditRequest.isLocal($0) ? $0 : nil } ?? state.href("edit=1")
        var rows: [[String: Any]] = []
        for entry in slice.entries {
            let path = entry.row.path
            rows.append([
                "path": path.description, "title": entry.row.title, "depth": min(entry.depth, 16),
                "checked": checked.contains(path),
            ])
        }
        var extra: [String: Any] = ["rows": rows, "returnTo": returnTo, "action": "/edit/batch"]
        if slice.total > size {
            let end = slice.offset + slice.entries.count
            var pager: [String: Any] = ["from": slice.offset + 1, "to": end, "total": slice.total]
            let keep = "back=\(RowHTML.percentEncoded(returnTo))"
            func href(_ at: Int) -> String { "/outline/select?" + [state.queryString, "offset=\(at)", keep].filter { !$0.isEmpty }.joined(separator: "&") }
            if slice.offset > 0 { pager["prev"] = href(max(0, slice.offset - size)) }
            if end < slice.total { pager["next"] = href(end) }
            extra["pager"] = pager
        }
        let chrome = Chrome(screen: "select", title: "Select rows", back: ("Cancel", returnTo))
        return site.assets.render("select", chrome.context(site: site, extra: extra))
    }
}
