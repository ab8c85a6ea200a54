import DrillDownCore

/// The outline screen (a tree view): the whole tree inside one list, indented by depth,
/// with disclosure triangles that are plain links toggling one path in the URL's state. A title
/// stays in the outline too (``OutlineState/cellHref(of:expanded:extra:)``): it toggles a row with
/// children, and opens a leaf's detail whose Back returns to this outline.
///
/// Renders one page of `outlinePageSize` visible rows from `offset`; the script turns it into
/// one virtualized list over every visible row, fed by `/api/outline`. In Edit mode (`edit=1`)
/// a row's cell selects it (`focus=PATH`) and the edit tools act on the selected row.
/// - Complexity: O(page × depth × log width) per request once the outline is cached.
struct OutlinePage {
    let site: Site
    let state: OutlineState
    let offset: Int?
    let focus: NodeID?
    /// Edit mode: rows select, the edit tools rename, add to, move and delete the selection.
    var editing = false

    /// The visible rows of one page, for the page and the API.
    struct Slice {
        var outline: Outline
        var total: Int
        var offset: Int
        var entries: [Entry]
    }

    /// One visible row: its presentation, depth (1 for the root's children), whether it is
    /// expanded, and the number of its siblings (its level's size, for `aria-setsize`).
    struct Entry {
        var row: Row
        var depth: Int
        var expanded: Bool
        var setSize: Int
        /// Its place among its siblings as shown (sorted levels in display order), 1-based, for `aria-posinset`.
        var position: Int
    }

    static func slice(site: Site, state: OutlineState, offset: Int?, focus: NodeID?, limit: Int) -> Slice {
        let outline = site.outlines.outline(state, presenter: site.presenter, revision: RequestState.current?.revision ?? 0)
        let source = site.source
        let total = outline.visibleCount
        var start = offset ?? 0
        if offset == nil, let focus, let row = outline.row(of: focus) { start = row / limit * limit }
        start = min(start, max(0, total - 1))
        let end = min(total, start + limit)
        var entries: [Entry] = []
        entries.reserveCapacity(end - start)
        var sizes: [NodeID: Int] = [:]
        for r in start ..< max(start, end) {
            guard let (id, depth) = outline.entry(atRow: r) else { break }
            let parent = source.parent(of: id) ?? source.root
            let setSize = sizes[parent] ?? site.presenter.rowCount(of: parent)
            sizes[parent] = setSize
            let row = site.presenter.row(for: id)
            let position = site.presenter.displayPosition(ofIndex: row.path.indices.last ?? 0, in: parent) + 1
            entries.append(Entry(row: row, depth: depth, expanded: outline.isExpanded(id), setSize: setSize, position: position))
        }
        return Slice(outline: outline, total: total, offset: start, entries: entries)
    }

    func render() -> String {
        let size = site.options.outlinePageSize
        let slice = Self.slice(site: site, state: state, offset: offset, focus: focus, limit: size)
        let editParam = editing ? "edit=1" : ""
        let pageParam = [editParam, slice.offset > 0 ? "offset=\(slice.offset)" : ""].filter { !$0.isEmpty }.joined(separator: "&")
        let focusPath = focus.map { site.source.path(of: $0) }
        var html = HTML(capacity: slice.entries.count * 300)
        for entry in slice.entries {
            let path = entry.row.path
            let toggle = entry.row.childCount > 0
                ? state.toggling(path, expanded: entry.expanded).href(pageParam) + "#n-\(path)" : nil
            let select = editing ? state.href([editParam, "focus=\(path)"].joined(separator: "&")) + "#n-\(path)" : nil
            // Outside Edit mode a row's title stays in the outline: it toggles a row with children, opens a leaf's detail.
            let open = editing ? nil : state.cellHref(of: entry.row, expanded: entry.expanded, extra: pageParam)
            RowHTML.appendTreeItem(
                entry.row, depth: entry.depth, setSize: entry.setSize, position: entry.position, expanded: entry.expanded, toggle: toggle,
                focused: path == focusPath, select: select, open: open, to: &html)
        }
        var extra: [String: Any] = [
            "rowsHTML": html, "total": slice.total, "offset": slice.offset, "stateQuery": state.queryString,
            "expandAll": OutlineState.allHref + (editing ? "&edit=1" : ""), "collapseAll": editing ? "/outline?edit=1" : "/outline",
            "rowTemplateHTML": editing ? RowHTML.treeEditTemplate : RowHTML.treeTemplate,
        ]
        if let focusPath, let focus, let row = slice.outline.row(of: focus) {
            extra["focusRow"] = row
            extra["focusPath"] = focusPath.description
        }
        if slice.total == 0 { extra["empty"] = true }
        if slice.total > size {
            let end = slice.offset + slice.entries.count
            var pager: [String: Any] = ["from": slice.offset + 1, "to": end, "total": slice.total]
            let paging = editing ? "edit=1&" : ""
            if slice.offset > 0 { pager["prev"] = state.href(paging + (slice.offset - size > 0 ? "offset=\(slice.offset - size)" : "")) }
            if end < slice.total { pager["next"] = state.href(paging + "offset=\(end)") }
            extra["pager"] = pager
        }
        if site.isEditable {
            let here = state.href([editParam, focusPath.map { "focus=\($0)" } ?? ""].filter { !$0.isEmpty }.joined(separator: "&"))
            let csrf = RequestState.current?.csrf ?? ""
            extra["editBar"] = [
                "isEditing": editing, "editHref": state.href(["edit=1", focusPath.map { "focus=\($0)" } ?? ""].filter { !$0.isEmpty }.joined(separator: "&")),
                "doneHref": state.href(focusPath.map { "focus=\($0)" } ?? ""), "back": here,
                "addHref": "/add?back=\(RowHTML.percentEncoded(here))", "addAction": "/edit/add/", "csrf": csrf,
            ]
            if editing {
                var tools = EditTools(site: site, selected: focus, back: here, away: state.href(editParam)).context()
                let checked = focusPath.map { "checked=\($0)" } ?? ""
                let from = slice.offset > 0 ? "offset=\(slice.offset)" : ""
                tools["selectHref"] = "/outline/select?" + [state.queryString, from, checked, "back=\(RowHTML.percentEncoded(state.href(editParam)))"]
                    .filter { !$0.isEmpty }.joined(separator: "&")
                extra["editTools"] = tools
            }
        }
        let chrome = Chrome(screen: "outline", title: site.presenter.rootTitle, back: nil, node: focus ?? site.source.root)
        return site.assets.render("outline", chrome.context(site: site, extra: extra))
    }
}

extension OutlineState {
    /// The URL of the fully expanded outline.
    static var allHref: String { "/outline?all=1" }
}
