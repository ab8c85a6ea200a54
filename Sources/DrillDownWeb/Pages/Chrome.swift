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
        // A request from no one on a server with accounts (an error page) is not told the data set's title.
        c["siteTitle"] = site.accounts != nil && RequestState.current?.user == nil ? "DrillDown" : site.presenter.rootTitle
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
        if let state = RequestState.current, let user = state.user, case .session = user.means {
            c["account"] = ["name": user.name, "csrf": state.csrf]
        }
        Self.addFieldBars(to: &c, site: site)
        addPresence(to: &c, site: site)
        if site.isEditable, let state = RequestState.current {
            if var bar = c["undoBar"] as? [String: Any] {
                bar["history"] = Self.history(state.history)
                c["undoBar"] = bar
            }
            if let notice = state.notice { c["notice"] = notice.context(here: Self.here(screen: screen, node: node, in: site.source)) }
        }
        if let node {
            let source = site.source
            let path = source.path(of: node)
            let level = source.childCount(of: node) > 0 ? path : path.parent
            c["pathbar"] = [
                "treePath": path.description, "titlePath": source.titlePath(of: node),
                "titles": source.lineage(of: node).dropFirst().map { ["title": source.title(of: $0)] },
                "csvHref": Links.export("csv", level), "opmlHref": Links.export("opml", path),
            ]
            if site.keepsHistory { c["historyLink"] = path.isRoot ? "/history" : "/history/\(path)" }
            c["goExample"] = site.presenter.access?.hidesRows == true
                ? Self.goExample(in: site.presenter)
                : site.goExamples.example(revision: RequestState.current?.revision ?? 0) { Self.goExample(in: site.presenter) }
            c["modes"] = [
                "list": Links.level(level), "outline": Links.outline(revealing: path), "columns": Links.columns(path),
                "isList": screen == "level" || screen == "detail", "isOutline": screen == "outline",
                "isColumns": screen == "columns",
            ]
            Self.addSearchOrigin(to: &c, screen: screen, node: node, path: path, site: site)
        }
        return c
    }
}

extension Chrome {
    /// On a live server with accounts, a signed-in reader's level or detail page names the level
    /// it is present on (a detail: its row's level, and the row while in Edit mode), for the
    /// script to follow `/events?presence=LEVEL` (see ``Site/joinPresence(_:lines:)``).
    func addPresence(to c: inout [String: Any], site: Site) {
        guard site.presence != nil, RequestState.current?.user != nil, let node, screen == "level" || screen == "detail" else { return }
        let path = site.source.path(of: node)
        guard screen == "detail" else {
            c["presence"] = ["level": path.description]
            return
        }
        let editing = (c["fieldsBar"] as? [String: Any])?["isEditing"] as? Bool == true
        c["presence"] = ["level": path.parent.description, "editing": editing ? path.description : ""]
    }

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

    /// The Undo and Redo buttons' state: disabled when they cannot act, else labelled with what
    /// they would do ("Undo Rename of Ringtone").
    static func history(_ state: HistoryState) -> [String: Any] {
        func button(_ verb: String, _ can: Bool, _ what: String?) -> [String: Any] {
            var b: [String: Any] = ["label": can ? [verb, what].compactMap { $0 }.joined(separator: " ") : "Nothing to \(verb.lowercased())"]
            if !can { b["disabled"] = true }
            return b
        }
        return ["undo": button("Undo", state.canUndo, state.undo), "redo": button("Redo", state.canRedo, state.redo)]
    }

    /// The level link of the page showing `node`, as a ``StepNotice``'s `href` is written, so a
    /// notice about this page does not offer to go to it.
    static func here(screen: String, node: NodeID?, in source: any Source) -> String? {
        guard let node, screen == "level" || screen == "detail" else { return nil }
        let path = source.path(of: node)
        return Links.level(screen == "level" || path.isRoot ? path : path.parent)
    }

    /// The search bar's origin: this page's URL (`from`, so the search page's back button returns
    /// here) and the level a search can be narrowed to (`searchScope`: its TreePath and title).
    static func addSearchOrigin(to c: inout [String: Any], screen: String, node: NodeID, path: TreePath, site: Site) {
        let href = switch screen {
        case "detail": Links.detail(path)
        case "columns": Links.columns(path)
        case "outline": Links.outline(revealing: path)
        default: Links.level(path)
        }
        c["searchFrom"] = ["href": href]
        if let level = SearchOrigin.level(of: node, in: site.source) {
            c["searchScope"] = ["path": site.source.path(of: level).description, "title": site.presenter.screenTitle(of: level)]
        }
    }

    /// A path of the data being served for the Go to field's placeholder, as both a TreePath and a
    /// title path (`0.0 or Miles Davis/Kind of Blue`): two levels down, preferring among the first
    /// few rows one that has children.
    /// Picked among the rows the reader is shown (``Presenter/access``), counting only their
    /// children, so it names no row hidden from them.
    /// - Complexity: O(depth × 16), whatever the levels' widths (× grants with hidden rows).
    static func goExample(in presenter: Presenter) -> String {
        let source = presenter.source
        let hiding = presenter.access.flatMap { $0.hidesRows ? $0 : nil }
        var node = source.root
        for _ in 0 ..< 2 {
            let range = source.children(of: node)
            let scan = (0 ..< min(range.count, hiding == nil ? 16 : 64)).lazy.map { range[$0] }
                .filter { hiding?.mayReach(source.path(of: $0)) ?? true }.prefix(16)
            guard let first = scan.first else { break }
            node = scan.first { presenter.rowCount(of: $0) > 0 } ?? first
            if presenter.rowCount(of: node) == 0 { break }
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
