import DrillDownCore

/// The parts every page shares: the navigation bar (back button, title, room for Edit/Add),
/// the search field, the mode switch and the path bar.
struct Chrome {
    /// Which screen this is: `level`, `detail`, `outline`, `columns`, `search`, `error`.
    var screen: String
    /// The navigation bar's title.
    var title: String
    /// The back button: the previous screen's title and URL; `nil` at the root.
    var back: (label: String, href: String)?
    /// The node the page is about, for the mode switch and the path bar.
    var node: NodeID?
    /// The search text shown in the field.
    var query = ""

    func context(site: Site, extra: [String: Any]) -> [String: Any] {
        var c = extra
        c["screen"] = screen
        c["title"] = title
        c["siteTitle"] = site.presenter.rootTitle
        c["version"] = site.assets.version
        c["query"] = query
        if site.isEditable, let state = RequestState.current {
            c["csrf"] = state.csrf
            c["editable"] = ["csrf": state.csrf, "revision": state.revision]
        }
        if let back { c["back"] = ["label": back.label, "href": back.href] }
        if let node {
            let source = site.source
            let path = source.path(of: node)
            let level = source.childCount(of: node) > 0 ? path : path.parent
            c["pathbar"] = ["treePath": path.description, "titlePath": source.titlePath(of: node)]
            c["modes"] = [
                "list": Links.level(level), "outline": Links.outline(revealing: path), "columns": Links.columns(path),
                "isList": screen == "level" || screen == "detail", "isOutline": screen == "outline",
                "isColumns": screen == "columns",
            ]
        }
        return c
    }
}

/// The page shown for a failed request: the status, the message and a way home.
struct ErrorPage {
    let site: Site
    let error: WebError

    func render() -> String {
        let chrome = Chrome(screen: "error", title: error.status.reasonPhrase, back: ("Home", "/"))
        return site.assets.render("error", chrome.context(site: site, extra: [
            "status": error.status.code, "reason": error.status.reasonPhrase, "message": error.message,
        ]))
    }
}
