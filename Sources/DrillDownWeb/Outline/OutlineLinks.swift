import DrillDownCore

/// Where the outline's rows lead, so that using the outline keeps you in it: a row with children
/// expands or collapses in place, a leaf opens its detail with a Back that returns to the outline
/// as it was (the state, the first visible row and the leaf focused), and a row added from the
/// outline's Edit mode shows under its parent, expanded.
extension OutlineState {
    /// The cell link of `row` outside Edit mode: for a row with children, this outline with the row
    /// toggled and focused; for a leaf, its detail opened from this outline; `nil` when selecting
    /// the row does nothing (an action, or `none`). `extra` (such as `offset=100`) travels with
    /// the link: the page the toggled outline opens at, the place a leaf's Back returns to.
    func cellHref(of row: Row, expanded: Bool, extra: String = "") -> String? {
        guard Links.leadsSomewhere(row) else { return nil }
        let path = row.path.description
        if row.childCount > 0 {
            return toggling(row.path, expanded: expanded).href([extra, "focus=\(path)"].filter { !$0.isEmpty }.joined(separator: "&")) + "#n-\(path)"
        }
        return Self.detailHref(path, outline: [queryString, extra].filter { !$0.isEmpty }.joined(separator: "&"))
    }

    /// The detail of the node at `path` opened from the outline whose query is `outline` (its state,
    /// and the first visible row as `offset=`).
    static func detailHref(_ path: String, outline: String) -> String {
        "/d/\(path)?outline=" + RowHTML.percentEncoded(outline)
    }

    /// This state with `path` expanded (a no-op when it is).
    func opening(_ path: TreePath) -> OutlineState { toggling(path, expanded: false) }

    /// The Back link of a detail opened from the outline: the outline of `query` (its state, and
    /// `offset=` when given) with `path` focused; `nil` when `query` is not an outline's.
    static func back(from query: String, focusing path: TreePath) -> String? {
        let parsed = Query(query)
        guard let state = try? OutlineState(query: parsed) else { return nil }
        let offset = parsed["offset"].flatMap { Int($0) }.map { "offset=\(max(0, $0))" } ?? ""
        return state.href(["focus=\(path)", offset].filter { !$0.isEmpty }.joined(separator: "&")) + "#n-\(path)"
    }

    /// Where a form posted from the outline returns after adding the row at `added`: `back` itself
    /// unless it is an outline URL, else that outline with every ancestor of the new row expanded
    /// and the new row focused (selected in Edit mode), so it shows at once.
    static func revealing(_ added: TreePath, after back: String) -> String {
        let url = back.prefix { $0 != "#" }
        let page = url.prefix { $0 != "?" }
        guard page == "/outline", !added.isRoot else { return back }
        let query = Query(url.count > page.count ? String(url.dropFirst(page.count + 1)) : nil)
        guard var state = try? OutlineState(query: query) else { return back }
        for depth in 1 ..< added.depth { state = state.opening(TreePath(Array(added.indices.prefix(depth)))) }
        let edit = query["edit"] == "1" ? "edit=1&" : ""
        return state.href(edit + "focus=\(added)") + "#n-\(added)"
    }
}
