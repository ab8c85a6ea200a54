import Foundation
import DrillDownCore
import Hummingbird

/// The HTML screens: `/` and `/l/PATH` levels, `/d/PATH` details (`?edit=1`: its fields as a
/// form), `/outline` (and on an editable
/// server its selection form `/outline/select`), `/columns/PATH`, `/search?q=`, and `/go?path=`
/// which opens any TreePath or title path.
extension Site {
    func addPageRoutes(to router: Router<SiteContext>) {
        router.get("/") { request, _ in
            let query = Query(request.uri.query)
            let filters = try FilterBar(query)
            var key = PageCache.Key(
                path: "/", offset: try query.int("offset", default: 0), editing: query["edit"] == "1", sort: query["sort"],
                filter: filters.cacheKey, facet: query["facet"])
            if let page = cachedPage(&key) { return Responses.html(page) }
            let page = try filteredPage(
                LevelPage(site: self, id: source.root, offset: key.offset, editing: key.editing, sort: try SortMenu.choice(key.sort)), filters, query)
            return Responses.html(keptPage(page, key))
        }
        router.get("/l/**") { request, _ in
            // A page shown before at this revision is answered as it was: its path was canonical,
            // a level and not a detail, and its offset valid then, and still is.
            let query = Query(request.uri.query)
            let filters = try FilterBar(query)
            var key = (try? query.int("offset", default: 0))
                .map {
                    PageCache.Key(
                        path: request.uri.path, offset: $0, editing: query["edit"] == "1", sort: query["sort"], filter: filters.cacheKey, facet: query["facet"])
                }
            if key != nil, let page = cachedPage(&key!) { return Responses.html(page) }
            let (id, canonical) = try NodeLookup.node(request.uri.path.dropFirst(3), in: source)
            let path = source.path(of: id)
            var nav = Navigator(presenter: presenter)
            nav.open(id)
            if nav.top.isDetail { return Responses.redirect(Links.detail(path)) }
            if !canonical { return Responses.redirect(Links.level(path)) }
            let offset = try query.int("offset", default: 0)
            let page = try filteredPage(
                LevelPage(site: self, id: id, offset: offset, editing: query["edit"] == "1", sort: try SortMenu.choice(query["sort"])), filters, query)
            return Responses.html(keptPage(page, key ?? PageCache.Key(
                path: request.uri.path, offset: offset, editing: page.editing, sort: query["sort"], filter: filters.cacheKey, facet: query["facet"])))
        }
        router.get("/d/**") { request, _ in
            let (id, canonical) = try NodeLookup.node(request.uri.path.dropFirst(3), in: source)
            let query = Query(request.uri.query)
            let editing = isEditable && query["edit"] == "1"
            if !canonical { return Responses.redirect(Links.detail(source.path(of: id)) + (editing ? "?edit=1" : "")) }
            return Responses.html(DetailPage(site: self, id: id, editing: editing, outline: query["outline"]).render())
        }
        router.get("/outline") { request, _ in
            let query = Query(request.uri.query)
            let state = try OutlineState(query: query)
            let offset: Int? = query["offset"] == nil ? nil : try query.int("offset", default: 0)
            var focus: NodeID?
            if let text = query["focus"], !text.isEmpty { focus = try NodeLookup.node(decoded: text, in: source).id }
            return Responses.html(OutlinePage(
                site: self, state: state, offset: offset, focus: focus, editing: isEditable && query["edit"] == "1").render())
        }
        router.get("/outline/select") { request, _ in
            guard isEditable else { throw WebError.notFound("This server is read-only: there is nothing to select rows for.") }
            let query = Query(request.uri.query)
            let offset: Int? = query["offset"] == nil ? nil : try query.int("offset", default: 0)
            let checked = Set(try OutlineState.paths(query["checked"], name: "checked"))
            return Responses.html(SelectionPage(
                site: self, state: try OutlineState(query: query), offset: offset, checked: checked, back: query["back"]).render())
        }
        router.get("/columns") { request, _ in
            Responses.html(ColumnsPage(site: self, id: source.root, editing: isEditable && Query(request.uri.query)["edit"] == "1").render())
        }
        router.get("/columns/**") { request, _ in
            let (id, canonical) = try NodeLookup.node(request.uri.path.dropFirst(9), in: source)
            let editing = isEditable && Query(request.uri.query)["edit"] == "1"
            if !canonical { return Responses.redirect(Links.columns(source.path(of: id)) + (editing ? "?edit=1" : "")) }
            return Responses.html(ColumnsPage(site: self, id: id, editing: editing).render())
        }
        router.get("/search") { request, _ in
            let query = Query(request.uri.query)
            var page = SearchPage(site: self, text: String((query["q"] ?? "").prefix(200)), includeValues: query["values"] == "1")
            page.offset = try query.int("offset", default: 0)
            page.origin = SearchOrigin(query["from"], site: self)
            if let scope = query["in"], !scope.isEmpty { page.scope = try searchScope(scope) }
            page.filter = String((query["where"] ?? "").prefix(FilterBar.maxLength)).trimmingCharacters(in: .whitespaces)
            if !page.filter.isEmpty { return Responses.html(try page.filtered().render()) }
            guard !page.text.trimmingCharacters(in: .whitespaces).isEmpty else { return Responses.html(page.render()) }
            return try await SearchPage.response(page, request: request)
        }
        router.get("/go") { request, _ in
            let query = Query(request.uri.query)
            let (id, _) = try NodeLookup.node(decoded: query["path"] ?? "", in: source)
            var nav = Navigator(presenter: presenter)
            nav.open(id)
            let path = source.path(of: id)
            return Responses.redirect(nav.top.isDetail ? Links.detail(path) : Links.level(path))
        }
    }

    /// `page` with the request's filters and facet field.
    /// - Throws: ``WebError`` 400 for a filter that does not parse or fit the level, or an unknown facet field.
    func filteredPage(_ page: LevelPage, _ filters: FilterBar, _ query: Query) throws(WebError) -> LevelPage {
        var page = page
        page.filters = filters
        let presenter = try filters.applied(to: page.presenter, level: page.id)
        if let field = query["facet"], !field.isEmpty {
            do { _ = try presenter.bind(.condition(.init(field: field, op: .exists, values: [])), to: page.id) } catch {
                throw .badRequest("'facet' \(error.message)")
            }
            page.facet = field
        }
        return page
    }

    /// The level page `key` of this request's snapshot with its session's token, when it was
    /// rendered before (see ``PageCache``). `key` is made the request's user's (``makeUsers(_:_:)``)
    /// in place: a signed-in page's request copied it twice.
    func cachedPage(_ key: inout PageCache.Key) -> ByteBuffer? {
        // (The task-local state read once: each read copies it.)
        guard let state = RequestState.current else { return pages.page(key, revision: 0, token: "") }
        // A page showing an undo's notice (see ``StepNotice``) is this request's alone.
        guard state.notice == nil else { return nil }
        // A signed-in session's own copy of the page, when its token is the one the page needs.
        let serial = state.session.flatMap { $0.token == state.csrf ? $0.serial : nil }
        Self.makeUsers(&key, state)
        return pages.page(key, revision: state.revision, token: state.csrf, serial: serial)
    }

    /// Makes `key` the request's user's: with accounts, what a page shows (rows, Edit buttons, the
    /// Sign out button's name) depends on who asks. (A field of its own, not joined to the path:
    /// no new string per request.)
    static func makeUsers(_ key: inout PageCache.Key, _ state: RequestState) {
        if let user = state.user { key.user = user.name }
    }

    /// `page` rendered with the cache's stand-in token and kept as `key`; returned with the
    /// session's own token. A page during whose rendering a read of the data failed (a database
    /// away) is not kept: rows are missing from it, and the request answers 503.
    func keptPage(_ page: LevelPage, _ key: PageCache.Key) -> ByteBuffer {
        let fallible = source as? any FallibleSource
        let failures = fallible?.readFailures.count
        guard let state = RequestState.current else {
            let html = page.render()
            guard fallible?.readFailures.count == failures else { return html.buffer }
            return pages.keep(html, key, revision: 0, token: "", tokenless: true)
        }
        if state.notice != nil { return page.render().buffer }
        var standIn = state
        standIn.csrf = pages.placeholder
        let html = RequestState.$current.withValue(standIn) { page.render() }
        guard fallible?.readFailures.count == failures else { return PageCache.cut(html.buffer, at: pages.placeholder).joined(with: state.csrf) }
        var key = key
        Self.makeUsers(&key, state)
        return pages.keep(html, key, revision: state.revision, token: state.csrf)
    }
}
