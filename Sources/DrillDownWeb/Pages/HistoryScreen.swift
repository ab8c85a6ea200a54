import DrillDownCore
import Foundation

/// The History screen of a node (`/history/PATH`) or of the whole data set (`/history`): who
/// changed what and when, old → new, newest first, a page at a time, each entry with a Revert
/// button (a form, so it works without the script) when the user may revert it.
struct HistoryScreen {
    let site: Site
    /// The node whose history is shown (the root: the whole data set).
    let node: NodeID
    /// The entries shown.
    let page: HistoryPage
    /// How many newer entries come before this page.
    let offset: Int
    /// Why the last Revert was refused, shown at the top.
    var error: String?

    /// Entries per page.
    static let pageSize = 50

    func render() -> String {
        let source = site.source
        let path = source.path(of: node)
        let title = site.presenter.screenTitle(of: node)
        let here = path.isRoot ? "/history" : "/history/\(path)"
        let back = path.isRoot ? Links.level(.root) : (source.childCount(of: node) > 0 ? Links.level(path) : Links.detail(path))
        let entries = page.records.map { record -> [String: Any] in
            var entry: [String: Any] = [
                "id": String(record.id), "who": record.who, "time": record.time.formatted(.iso8601),
                "timeShown": record.time.formatted(date: .abbreviated, time: .standard), "summary": record.summary,
                "changes": record.differences.map { d -> [String: Any] in
                    [
                        "field": d.field, "old": d.old ?? "—", "new": d.new ?? "—",
                        "row": d.path.isRoot ? site.presenter.rootTitle : (source.node(at: d.path).map { source.titlePath(of: $0) } ?? d.path.description),
                    ]
                },
            ]
            if record.kind != .change, let target = record.target { entry["kind"] = "\(record.kind.rawValue.capitalized) of #\(target)" }
            if site.isEditable, site.mayRevert(record) { entry["revert"] = ["action": "/history/revert", "back": here] }
            return entry
        }
        var extra: [String: Any] = [
            "heading": path.isRoot ? "History of \(title)" : "History of “\(title)”", "entries": entries,
            "empty": entries.isEmpty, "total": page.total,
        ]
        if let error { extra["error"] = error }
        if offset > 0 { extra["newer"] = "\(here)?offset=\(max(0, offset - Self.pageSize))" }
        if offset + page.records.count < page.total { extra["older"] = "\(here)?offset=\(offset + page.records.count)" }
        let chrome = Chrome(screen: "history", title: path.isRoot ? "History" : "History of \(title)", back: (title, back), node: node)
        return site.assets.render("history", chrome.context(site: site, extra: extra))
    }
}
