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

    /// The page's context: `extra` (the screen's own names) and the chrome's.
    func context(site: Site, extra: [String: Any]) -> TemplateContext {
        context(site: site, extra: TemplateContext(extra))
    }

    /// The page's context: `extra` (the screen's own names) and the chrome's.
    func context(site: Site, extra: TemplateContext) -> TemplateContext {
        var c = extra
        c[.screen] = .text(screen)
        c[.title] = .text(title)
        // A request from no one on a server with accounts (an error page) is not told the data set's title.
        c[.siteTitle] = .text(site.accounts != nil && RequestState.current?.user == nil ? "DrillDown" : site.presenter.rootTitle)
        c[.version] = .text(site.assets.version)
        c[.query] = .text(query)
        c[.searchScreen] = .bool(screen == "search")
        let state = RequestState.current
        if site.isEditable, let state {
            c[.csrf] = .text(state.csrf)
            c[.editable] = .object([.csrf: .text(state.csrf), .revision: .int(state.revision)])
        } else if site.isLive, let state {
            c[.live] = .object([.revision: .int(state.revision)])
        }
        if let back { c[.back] = .object([.label: .text(back.label), .href: .text(back.href)]) }
        if let state, let user = state.user, case .session = user.means {
            c[.account] = .object([.name: .text(user.name), .csrf: .text(state.csrf)])
        }
        Self.addFieldBars(to: &c, site: site)
        addPresence(to: &c, site: site)
        if site.isEditable, let state {
            if case .object(var bar)? = c[.undoBar] {
                bar[.history] = .object(Self.history(state.history))
                c[.undoBar] = .object(bar)
            }
            if let notice = state.notice {
                c[.notice] = .object(TemplateContext(notice.context(here: Self.here(screen: screen, node: node, in: site.source))))
            }
        }
        if let node {
            let source = site.source
            let path = source.path(of: node)
            let level = source.childCount(of: node) > 0 ? path : path.parent
            c[.pathbar] = .object([
                .treePath: .text(path.description), .titlePath: .text(source.titlePath(of: node)),
                .titles: .list(source.lineage(of: node).dropFirst().map { .object([.title: .text(source.title(of: $0))]) }),
                .csvHref: .text(Links.export("csv", level)), .opmlHref: .text(Links.export("opml", path)),
            ])
            if site.keepsHistory { c[.historyLink] = .text(path.isRoot ? "/history" : "/history/\(path)") }
            let presenter = site.presenter
            c[.goExample] = .text(presenter.access?.hidesRows == true
                ? Self.goExample(in: presenter)
                : site.goExamples.example(revision: state?.revision ?? 0) { Self.goExample(in: presenter) })
            c[.modes] = .object([
                .list: .text(Links.level(level)), .outline: .text(Links.outline(revealing: path)), .columns: .text(Links.columns(path)),
                .isList: .bool(screen == "level" || screen == "detail"), .isOutline: .bool(screen == "outline"),
                .isColumns: .bool(screen == "columns"),
            ])
            Self.addSearchOrigin(to: &c, screen: screen, node: node, path: path, site: site)
        }
        return c
    }
}

extension Chrome {
    /// On a live server with accounts, a signed-in reader's level or detail page names the level
    /// it is present on (a detail: its row's level, and the row while in Edit mode), for the
    /// script to follow `/events?presence=LEVEL` (see ``Site/joinPresence(_:lines:)``). An outline
    /// or columns page is marked `data-levels`: the script names the levels of the rows it shows.
    func addPresence(to c: inout TemplateContext, site: Site) {
        guard site.presence != nil, RequestState.current?.user != nil, let node else { return }
        let path = site.source.path(of: node)
        switch screen {
        case "level": c[.presence] = .object([.level: .text(path.description)])
        case "outline", "columns": c[.presence] = .object([.level: .text(""), .levels: .bool(true)])
        case "detail":
            var editing = false
            if case .object(let bar)? = c[.fieldsBar], case .bool(true)? = bar[.isEditing] { editing = true }
            c[.presence] = .object([.level: .text(path.parent.description), .editing: .text(editing ? path.description : "")])
        default: return
        }
    }

    /// The Undo/Redo bar of a page with edit tools (the level, outline and columns pages'
    /// `editBar`, or a detail's `fieldsBar` outside its Edit mode), and the Add dialog's fields:
    /// those of a new child of the node the `+` button adds to (``FieldForm``).
    static func addFieldBars(to c: inout TemplateContext, site: Site) {
        if case .object(var bar)? = c[.editBar] {
            if case .text(let action)? = bar[.addAction], action.hasPrefix("/edit/add/"),
                let parent = try? NodeLookup.node(action.dropFirst(10), in: site.source).id
            {
                let form = FieldForm(source: site.source, schema: site.presenter.schema, newChildOf: parent)
                bar[.addFieldsHTML] = .text(FieldInputs(form: form, editing: false, idPrefix: "add", titleID: "add-dialog-title-input").html())
            }
            c[.editBar] = .object(bar)
            c[.undoBar] = .object(bar)
        } else if case .object(let bar)? = c[.fieldsBar] {
            if case .bool(true)? = bar[.isEditing] { return }
            c[.undoBar] = .object(bar)
        }
    }

    /// The Undo and Redo buttons' state: disabled when they cannot act, else labelled with what
    /// they would do ("Undo Rename of Ringtone").
    static func history(_ state: HistoryState) -> TemplateContext {
        func button(_ verb: String, _ can: Bool, _ what: String?) -> TemplateValue {
            var b: TemplateContext = [.label: .text(can ? [verb, what].compactMap { $0 }.joined(separator: " ") : "Nothing to \(verb.lowercased())")]
            if !can { b[.disabled] = .bool(true) }
            return .object(b)
        }
        return [.undo: button("Undo", state.canUndo, state.undo), .redo: button("Redo", state.canRedo, state.redo)]
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
    static func addSearchOrigin(to c: inout TemplateContext, screen: String, node: NodeID, path: TreePath, site: Site) {
        let href = switch screen {
        case "detail": Links.detail(path)
        case "columns": Links.columns(path)
        case "outline": Links.outline(revealing: path)
        default: Links.level(path)
        }
        c[.searchFrom] = .object([.href: .text(href)])
        if let level = SearchOrigin.level(of: node, in: site.source) {
            c[.searchScope] = .object([.path: .text(site.source.path(of: level).description), .title: .text(site.presenter.screenTitle(of: level))])
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
        let extra: [String: Any] = ["status": error.status.code, "reason": error.status.reasonPhrase, "message": error.message]
        return site.assets.render("error", chrome.context(site: site, extra: extra))
    }
}
