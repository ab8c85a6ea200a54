import DrillDownCore

/// The parts every page shares: the navigation bar (back button, title, room for Edit/Add),
/// the search field, the mode switch and the Path menu (the node's TreePath and titles, with
/// copy buttons and a Go to field, in a `<details>` disclosure that works without the script).
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
        c["searchScreen"] = screen == "search"
        if site.isEditable, let state = RequestState.current {
            c["csrf"] = state.csrf
            c["editable"] = ["csrf": state.csrf, "revision": state.revision]
        } else if site.isLive, let state = RequestState.current {
            c["live"] = ["revision": state.revision]
        }
        if let back { c["back"] = ["label": back.label, "href": back.href] }
        Self.addFieldBars(to: &c, site: site)
        if let node {
            let source = site.source
            let path = source.path(of: node)
            let level = source.childCount(of: node) > 0 ? path : path.parent
            c["pathbar"] = [
                "treePath": path.description, "titlePath": source.titlePath(of: node),
                "titles": source.lineage(of: node).dropFirst().map { ["title": source.title(of: $0)] },
            ]
            c["goExample"] = site.goExamples.example(revision: RequestState.current?.revision ?? 0) { Self.goExample(in: source) }
            c["modes"] = [
                "list": Links.level(level), "outline": Links.outline(revealing: path), "columns": Links.columns(path),
                "isList": screen == "level" || screen == "detail", "isOutline": screen == "outline",
                "isColumns": screen == "columns",
            ]
        }
        return c
    }
}

extension Chrome {
    /// The Undo/Redo bar of a page with edit tools (the level, outline and columns pages'
    /// `editBar`, or a detail's `fieldsBar` outside its Edit mode), and the Add dialog's fields:
    /// those of a new child of the node the `+` button adds to (``FieldForm``).
    static func addFieldBars(to c: inout [String: Any], site: Site) {
        if var bar = c["editBar"] as? [String: Any] {
            if let action = bar["addAction"] as? String, action.hasPrefix("/edit/add/"),
                let parent = try? NodeLookup.node(action.dropFirst(10), in: site.source).id
            {
                let form = FieldForm(source: site.source, schema: site.presenter.schema, newChildOf: parent)
                bar["addFieldsHTML"] = FieldInputs(form: form, editing: false, idPrefix: "add", titleID: "add-dialog-title-input").html()
            }
            c["editBar"] = bar
            c["undoBar"] = bar
        } else if let bar = c["fieldsBar"] as? [String: Any], bar["isEditing"] as? Bool != true {
            c["undoBar"] = bar
        }
    }

    /// A path of the data being served for the Go to field's placeholder, as both a TreePath and a
    /// title path (`0.0 or Miles Davis/Kind of Blue`): two levels down, preferring among the first
    /// few rows one that has children.
    /// - Complexity: O(depth × 16), whatever the levels' widths.
    static func goExample(in source: any Source) -> String {
        var node = source.root
        for _ in 0 ..< 2 {
            let children = source.children(of: node)
            guard children.count > 0 else { break }
            let scan = min(children.count, 16)
            node = (0 ..< scan).lazy.map { children[$0] }.first { source.childCount(of: $0) > 0 } ?? children[0]
            if source.childCount(of: node) == 0 { break }
        }
        guard node != source.root else { return "a TreePath or title path" }
        return "\(source.path(of: node)) or \(source.titlePath(of: node))"
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
