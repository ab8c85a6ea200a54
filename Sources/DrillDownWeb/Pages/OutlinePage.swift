import DrillDownCore

/// The outline screen (seed 003's TreeView): the whole tree inside one list, indented by depth,
/// with disclosure triangles that are plain links toggling one path in the URL's state.
///
/// Renders one page of `outlinePageSize` visible rows from `offset`.
/// - Complexity: O(page × depth × log width) per request once the outline is cached.
struct OutlinePage {
    let site: Site
    let state: OutlineState
    let offset: Int?
    let focus: NodeID?

    /// The visible rows of one page, for the page and the API.
    struct Slice {
        var outline: Outline
        var total: Int
        var offset: Int
        var entries: [(row: Row, depth: Int, expanded: Bool)]
    }

    static func slice(site: Site, state: OutlineState, offset: Int?, focus: NodeID?, limit: Int) -> Slice {
        let outline = site.outlines.outline(state, source: site.source, revision: RequestState.current?.revision ?? 0)
        let total = outline.visibleCount
        var start = offset ?? 0
        if offset == nil, let focus, let row = outline.row(of: focus) { start = row / limit * limit }
        start = min(start, max(0, total - 1))
        let end = min(total, start + limit)
        var entries: [(Row, Int, Bool)] = []
        entries.reserveCapacity(end - start)
        for r in start ..< max(start, end) {
            guard let (id, depth) = outline.entry(atRow: r) else { break }
            entries.append((site.presenter.row(for: id), depth, outline.isExpanded(id)))
        }
        return Slice(outline: outline, total: total, offset: start, entries: entries)
    }

    func render() -> String {
        let size = site.options.outlinePageSize
        let slice = Self.slice(site: site, state: state, offset: offset, focus: focus, limit: size)
        let pageParam = slice.offset > 0 ? "offset=\(slice.offset)" : ""
        let focusPath = focus.map { site.source.path(of: $0) }
        var html = ""
        html.reserveCapacity(slice.entries.count * 300)
        for entry in slice.entries {
            let path = entry.row.path
            let toggle = entry.row.childCount > 0
                ? state.toggling(path, expanded: entry.expanded).href(pageParam) + "#n-\(path)" : nil
            RowHTML.appendTreeItem(
                entry.row, depth: entry.depth, expanded: entry.expanded, toggle: toggle, focused: path == focusPath, to: &html)
        }
        var extra: [String: Any] = [
            "rowsHTML": html, "total": slice.total, "offset": slice.offset, "stateQuery": state.queryString,
            "expandAll": OutlineState.allHref, "collapseAll": "/outline",
        ]
        if slice.total == 0 { extra["empty"] = true }
        if slice.total > size {
            let end = slice.offset + slice.entries.count
            var pager: [String: Any] = ["from": slice.offset + 1, "to": end, "total": slice.total]
            if slice.offset > 0 { pager["prev"] = state.href(slice.offset - size > 0 ? "offset=\(slice.offset - size)" : "") }
            if end < slice.total { pager["next"] = state.href("offset=\(end)") }
            extra["pager"] = pager
        }
        let chrome = Chrome(screen: "outline", title: site.presenter.rootTitle, back: nil, node: focus ?? site.source.root)
        return site.assets.render("outline", chrome.context(site: site, extra: extra))
    }
}

extension OutlineState {
    /// The URL of the fully expanded outline.
    static var allHref: String { "/outline?all=1" }
}
