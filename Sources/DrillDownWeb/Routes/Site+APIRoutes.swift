import Foundation
import DrillDownCore
import Hummingbird

/// The JSON API: the same data as the pages. Paths are TreePaths or title paths; errors are
/// `{"error": "..."}` with the matching status.
///
/// - `GET /api/level/PATH?offset=0&limit=100&where=length>360&where=genre=Rock` (`where`: filters, all must match)
/// - `GET /api/facets?path=PATH&field=genre&where=length>360&limit=10`: a field's most frequent values
/// - `GET /api/node/PATH`
/// - `GET /api/search?q=TEXT&offset=0&limit=100&values=1&in=PATH` (`in`: only under that node)
/// - `GET /api/outline?open=1,1.0&offset=0&limit=500` (or `all=1&closed=...`; `focus=PATH` adds that
///   node's row number, or null when a collapsed ancestor hides it)
/// - `GET /api/openapi.json`: the OpenAPI 3 document of every `/api/` route (writes included),
///   `Resources/api/openapi.json`; `APIDocumentTests` keeps it and the router in step.
extension Site {
    func addAPIRoutes(to router: Router<SiteContext>) {
        router.get("/api/openapi.json") { request, _ in
            let file = assets.apiDocument
            if request.headers[.ifNoneMatch] == file.etag { return Response(status: .notModified, headers: [.eTag: file.etag]) }
            return Response(
                status: .ok, headers: [.contentType: file.contentType, .eTag: file.etag, .cacheControl: "no-cache"],
                body: .init(byteBuffer: file.body))
        }
        router.get("/api/level") { request, _ in try level(source.root, request) }
        router.get("/api/level/**") { request, _ in
            try level(try NodeLookup.node(request.uri.path.dropFirst(11), in: source).id, request)
        }
        router.get("/api/facets") { request, _ in
            let query = Query(request.uri.query)
            let id = try NodeLookup.node(decoded: query["path"] ?? "", in: source).id
            guard let field = query["field"], !field.isEmpty else { throw WebError.badRequest("Give the field to count as ?field=.") }
            let filters = try FilterBar(query)
            let presenter = try filters.applied(to: self.presenter, level: id)
            let limit = min(try query.int("limit", default: 10), options.maxAPILimit)
            let facet: Facet
            do throws(FilterError) { facet = try presenter.facet(of: id, field: field, limit: limit) } catch {
                throw WebError.badRequest("'field' \(error.message)")
            }
            return try Responses.json(FacetJSON(
                path: source.path(of: id).description, field: facet.field, rows: facet.rows, missing: facet.missing, distinct: facet.distinct,
                values: facet.values.map { .init(value: $0.value, label: $0.label, count: $0.count, where: facet.filter(for: $0).description) }))
        }
        router.get("/api/node") { _, _ in try Responses.json(node(source.root)) }
        router.get("/api/node/**") { request, _ in
            try Responses.json(node(try NodeLookup.node(request.uri.path.dropFirst(10), in: source).id))
        }
        router.get("/api/search") { request, _ in
            let query = Query(request.uri.query)
            let text = (query["q"] ?? "").trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw WebError.badRequest("Give the text to find as ?q=.") }
            guard text.utf8.count <= 200 else { throw WebError.badRequest("The search text is longer than 200 bytes.") }
            let limit = min(try query.int("limit", default: options.searchLimit), options.maxAPILimit)
            let offset = try query.int("offset", default: 0)
            let scope = try query["in"].flatMap { $0.isEmpty ? nil : try searchScope($0) }
            let found = try await SearchPage.hits(
                site: self, query: SearchPage.query(text, includeValues: query["values"] == "1", offset: offset, limit: limit, scope: scope),
                request: request)
            return closesConnection(try Responses.json(SearchJSON(query: text, total: found.total, offset: offset, hits: found.hits.map {
                .init(path: $0.row.path.description, titlePath: $0.titlePath, title: $0.row.title,
                      subtitle: $0.row.subtitle.isEmpty ? nil : $0.row.subtitle, drills: $0.row.drills, href: $0.href, parents: $0.parents)
            })), request)
        }
        router.get("/api/outline") { request, _ in
            let query = Query(request.uri.query)
            let state = try OutlineState(query: query)
            let limit = min(try query.int("limit", default: options.outlinePageSize), options.maxAPILimit)
            let slice = OutlinePage.slice(site: self, state: state, offset: try query.int("offset", default: 0), focus: nil, limit: limit)
            var focusRow: Int?
            if let text = query["focus"], !text.isEmpty {
                focusRow = slice.outline.row(of: try NodeLookup.node(decoded: text, in: source).id)
            }
            return try Responses.json(OutlineJSON(
                state: state.queryString, total: slice.total, offset: slice.offset, focusRow: focusRow,
                rows: slice.entries.map {
                    .init(path: $0.row.path.description, title: $0.row.title, subtitle: $0.row.subtitle.isEmpty ? nil : $0.row.subtitle,
                          depth: $0.depth, children: $0.row.childCount, expanded: $0.expanded, setSize: $0.setSize, position: $0.position,
                          href: state.cellHref(of: $0.row, expanded: $0.expanded))
                }))
        }
    }

    /// The node a search is narrowed to by `?in=PATH` (a TreePath or title path); `nil` for the root.
    /// - Throws: ``WebError`` 400/404 as ``NodeLookup`` does.
    func searchScope(_ path: String) throws(WebError) -> NodeID? {
        let id = try NodeLookup.node(decoded: path, in: source).id
        return id == source.root ? nil : id
    }

    func level(_ id: NodeID, _ request: Request) throws -> Response {
        let query = Query(request.uri.query)
        let offset = try query.int("offset", default: 0)
        let limit = min(try query.int("limit", default: options.pageSize), options.maxAPILimit)
        let path = source.path(of: id)
        var presenter = self.presenter
        if let choice = try SortMenu.choice(query["sort"]) { presenter = presenter.sorting(id, by: choice) }
        presenter = try FilterBar(query).applied(to: presenter, level: id)
        let rows = presenter.rows(of: id, offset: offset, limit: limit)
        return try Responses.json(LevelJSON(
            title: presenter.screenTitle(of: id), backLabel: id == source.root ? nil : presenter.screenTitle(of: source.parent(of: id)!),
            path: path.description, titlePath: source.titlePath(of: id), total: presenter.rowCount(of: id),
            offset: offset, limit: limit, rows: rows.map(RowJSON.init)))
    }

    func node(_ id: NodeID) -> NodeJSON {
        var nav = Navigator(presenter: presenter)
        nav.open(id, detail: id != source.root)
        let detail = presenter.detail(of: id)
        return NodeJSON(
            title: presenter.screenTitle(of: id), backLabel: nav.backLabel, path: source.path(of: id).description,
            titlePath: source.titlePath(of: id), kind: detail.row.kind,
            subtitle: detail.row.subtitle.isEmpty ? nil : detail.row.subtitle, image: Links.image(detail.row.image),
            children: detail.row.childCount, drills: detail.row.drills, value: detail.value?.text,
            valueKind: detail.value?.kind.description, fields: detail.fields.map { .init(key: $0.key, value: $0.text) },
            breadcrumbs: nav.breadcrumbs.map { .init(title: $0.title, path: $0.path.description) })
    }
}
