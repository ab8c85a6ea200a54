import DrillDownCore

/// The Move… destination picker (`GET /move/PATH`, or `GET /move?paths=0.1,2.4` for several
/// rows): browse the tree level by level (`at=` the level shown, a TreePath), search for a
/// destination by title (`q=`), or type a path (`at=` a TreePath or title path), then Move Here
/// (with a position unless the level keeps its rows in an order of its own).
///
/// Rows that cannot receive the moved rows (the rows themselves, rows inside them, values that
/// hold no children) are shown disabled with the reason; a level that refuses them disables
/// Move Here and says why. The page is the no-script form and what the script's Move dialog
/// shows (it loads the page and keeps `#move-picker`); a refused move or an unknown typed path
/// comes back here, at the same place, with the message and what was typed.
struct MovePickerPage {
    let site: Site
    /// The rows being moved, in tree order.
    let moving: [TreePath]
    /// The level shown: the destination Move Here moves into.
    var at: TreePath
    /// The search text, when searching for a destination.
    var query = ""
    /// The search's hits, when searching.
    var results: SearchResult?
    /// The first row shown of a long level.
    var offset = 0
    /// Where Cancel and a finished move return to, when given and local.
    var back: String?
    /// Why the last attempt failed (a refused move, a typed path that names nothing).
    var error: String?
    /// The typed path, kept after it failed.
    var typed: String?
    /// The position chosen before a refused move (the `index` field).
    var index: String?

    /// Rows shown per page of a level, and the most positions listed.
    static let pageSize = 100

    func render() -> String {
        let source = site.source
        let presenter = site.presenter
        let titles = moving.compactMap { source.node(at: $0) }.map { presenter.screenTitle(of: $0) }
        let heading = titles.count == 1 ? "Move “\(titles[0])”" : "Move \(titles.count) rows"
        var returnTo = Links.level(moving[0].parent)
        if let back, EditRequest.isLocal(back) { returnTo = back }
        let place = source.node(at: at) ?? source.root
        let placeTitle = presenter.screenTitle(of: place)
        var extra: [String: Any] = [
            "heading": heading, "returnTo": returnTo, "placeTitle": placeTitle, "atPath": at.description,
            "query": query, "formPaths": moving.map { ["path": $0.description] },
            "summary": titles.count == 1
                ? "Choose where “\(titles[0])” and everything under it goes."
                : "Choose where the \(titles.count) rows and everything under them go.",
            "base": base, "keepRows": keep(at: nil).map { ["name": $0.name, "value": $0.value] },
        ]
        if moving.count == 1 {
            extra["action"] = "/edit/move/\(moving[0])"
        } else {
            extra["action"] = "/edit/batch"
            extra["isBatch"] = true
        }
        if let error { extra["error"] = error }
        if let typed {
            extra["typed"] = typed
            extra["advancedOpen"] = true
        }
        if !at.isRoot {
            let up = at.parent
            extra["up"] = ["href": href(at: up), "label": presenter.screenTitle(of: source.node(at: up) ?? source.root)]
        }
        if let results {
            extra["searching"] = true
            extra["rows"] = results.hits.map { id -> [String: Any] in
                let path = source.path(of: id)
                var row = entry(path: path, title: presenter.screenTitle(of: id))
                row["context"] = ancestors(of: id)
                return row
            }
            let n = results.total
            extra["resultCount"] = n == 0 ? "No matches" : n == 1 ? "1 match" : n > results.hits.count ? "\(n) matches, showing the first \(results.hits.count)" : "\(n) matches"
            extra["clearHref"] = href(at: at)
        } else {
            let count = source.childCount(of: place)
            let rows = presenter.rows(of: place, offset: offset, limit: Self.pageSize)
            extra["rows"] = rows.map { row -> [String: Any] in
                var e = entry(path: row.path, title: row.title)
                if moving.contains(row.path) { e["isMoving"] = true }
                return e
            }
            if count == 0 { extra["empty"] = true }
            if count > Self.pageSize {
                let end = offset + rows.count
                var pager: [String: Any] = ["from": offset + 1, "to": end, "total": count]
                if offset > 0 { pager["prev"] = href(at: at, offset: max(0, offset - Self.pageSize)) }
                if end < count { pager["next"] = href(at: at, offset: end) }
                extra["pager"] = pager
            }
        }
        if let refusal = MoveCheck.refusal(moving: moving, into: at, in: presenter) {
            extra["refusal"] = refusal + "."
        } else if let order = MoveCheck.ownOrder(ofChildrenOf: place, in: source) {
            extra["orderNote"] = "Rows here are ordered by \(order): the moved rows take their places."
        } else if let rule = presenter.sortRule(of: place) {
            let by = rule.description.hasPrefix("-") ? "\(rule.description.dropFirst()), descending" : rule.description
            extra["orderNote"] = "Rows here are sorted by \(by): the moved rows take their places."
        } else {
            extra["positions"] = positions(in: place)
            extra["hasPositions"] = true
        }
        let chrome = Chrome(screen: "move", title: heading, back: ("Cancel", returnTo))
        return site.assets.render("movepicker", chrome.context(site: site, extra: extra))
    }

    /// One destination row: a link that opens it, or the reason it cannot.
    func entry(path: TreePath, title: String) -> [String: Any] {
        var e: [String: Any] = ["title": title, "path": path.description]
        if let reason = MoveCheck.browseRefusal(path, moving: moving, in: site.presenter) {
            e["reason"] = reason
        } else {
            e["href"] = href(at: path)
        }
        return e
    }

    /// Where a search hit is: its ancestors' titles from the top (“Settings › General”).
    func ancestors(of id: NodeID) -> String {
        var titles: [String] = []
        var node = site.source.parent(of: id)
        while let n = node {
            titles.append(site.presenter.screenTitle(of: n))
            node = site.source.parent(of: n)
        }
        return titles.reversed().joined(separator: " › ")
    }

    /// The choices of position in `place`: at the end (chosen unless another was), at the
    /// start, and after each row of a short level, as indices counted once the moved rows left.
    func positions(in place: NodeID) -> [[String: Any]] {
        let source = site.source
        let chosen = index ?? ""
        var options: [[String: Any]] = [
            ["value": "", "label": "At the end", "selected": chosen.isEmpty],
            ["value": "0", "label": "At the start", "selected": chosen == "0"],
        ]
        let count = source.childCount(of: place)
        let total = count - moving.filter { $0.parent == at }.count
        guard total > 0 else { return [options[0]] }
        guard count <= Self.pageSize else { return options }
        var staying = 0
        for row in site.presenter.rows(of: place) where !moving.contains(row.path) {
            staying += 1
            if staying == total { break }
            let value = String(staying)
            options.append(["value": value, "label": "After “\(row.title)”", "selected": chosen == value])
        }
        return options
    }

    /// The picker's own URL: `/move/PATH`, or `/move?paths=…` for several rows.
    var base: String { moving.count == 1 ? "/move/\(moving[0])" : "/move" }

    /// The picker at `at` (and `offset`), keeping the rows and the return page.
    func href(at path: TreePath, offset: Int = 0) -> String {
        var parts = keep(at: path).map { "\($0.name)=\(RowHTML.percentEncoded($0.value))" }
        if offset > 0 { parts.append("offset=\(offset)") }
        return base + "?" + parts.joined(separator: "&")
    }

    /// The query fields every picker link and form carries: the rows (several), the level
    /// (unless `nil`) and the return page.
    func keep(at path: TreePath?) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        if moving.count > 1 { fields.append(("paths", moving.map(\.description).joined(separator: ","))) }
        if let path { fields.append(("at", path.description)) }
        if let back, EditRequest.isLocal(back) { fields.append(("back", back)) }
        return fields
    }
}
