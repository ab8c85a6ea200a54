import Foundation
import DrillDownCore
import Hummingbird

/// The search screen: a field, and a page of matches, each with its title (the matched text
/// marked) and the titles of its parents; choosing one opens its level (when it drills) or its
/// detail. `?offset=` pages on (Previous / Next links); `?from=` is the page the search started
/// on (the back button returns there); `?in=` narrows the search to that page's level.
struct SearchPage {
    let site: Site
    let text: String
    let includeValues: Bool
    /// The first hit shown (0-based).
    var offset = 0
    /// Where the search started, when known.
    var origin: SearchOrigin?
    /// The node whose descendants are searched; `nil` for the whole tree.
    var scope: NodeID?
    /// The filter field's expression (`?where=`): rows at any depth it matches (and whose title
    /// contains `text`, when given); empty for a plain search.
    var filter = ""
    /// The hits and total of a non-blank `text`, searched by the route (see ``hits(site:query:request:)``).
    var found: (hits: [Hit], total: Int)?

    /// One search hit, for the page and the API.
    struct Hit {
        var row: Row
        var titlePath: String
        /// The titles of the hit's ancestors below the root, outermost first (the root's title
        /// for a hit at the top level).
        var parents: [String]
        var href: String
    }

    /// The page's search: the text, trimmed, from `offset` on, `limit` hits, in `scope`.
    static func query(_ text: String, includeValues: Bool, offset: Int, limit: Int, scope: NodeID?) -> SearchQuery {
        SearchQuery(text.trimmingCharacters(in: .whitespaces), includeValues: includeValues, limit: limit, offset: offset, in: scope)
    }

    /// Searches on the site's ``SearchPool`` and presents the hits of `query`'s page.
    /// - Throws: `CancellationError` when the client went away meanwhile.
    static func hits(site: Site, query: SearchQuery, request: Request) async throws -> (hits: [Hit], total: Int) {
        let result = try await site.search(query, request: request)
        return (present(result.hits, site: site), result.total)
    }

    /// The hits as the page and the API show them.
    static func present(_ ids: [NodeID], site: Site) -> [Hit] {
        let source = site.source, presenter = site.presenter
        return ids.map { id -> Hit in
            let row = presenter.row(for: id)
            var parents: [String] = []
            var up = source.parent(of: id)
            while let node = up, node != source.root {
                parents.append(presenter.screenTitle(of: node))
                up = source.parent(of: node)
            }
            if parents.isEmpty { parents = [presenter.rootTitle] }
            return Hit(row: row, titlePath: source.titlePath(of: id), parents: parents.reversed(),
                       href: row.drills ? Links.level(row.path) : Links.detail(row.path))
        }
    }

    /// The search page sent in two parts when the first hits come before the count: the page
    /// with those hits at once, then, when the search ends, the count (below the list; the
    /// page's script moves it up into the summary), the Previous/Next links and the rest of the page.
    /// - Throws: `CancellationError` when the client went away before the first hits.
    static func response(_ page: SearchPage, request: Request) async throws -> Response {
        let site = page.site
        let running = try await site.startSearch(
            query(page.text, includeValues: page.includeValues, offset: page.offset, limit: site.options.searchLimit, scope: page.scope),
            request: request)
        guard let early = running.early else {
            let result = try await running.task.value
            var page = page
            page.found = (present(result.hits, site: site), result.total)
            return site.closesConnection(Responses.html(page.render()), request)
        }
        var first = page
        first.found = (present(early, site: site), early.count)
        first.counting = true
        let html = first.render()
        let split = html.range(of: countMarker) ?? html.endIndex ..< html.endIndex
        let head = String(html[..<split.lowerBound]), tail = String(html[split.upperBound...])
        let shown = early.count, offset = page.offset, link = page.link, limit = site.options.searchLimit
        let body = ResponseBody { writer in
            do {
                try await writer.write(ByteBuffer(string: head))
            } catch {
                running.task.cancel()
                throw error
            }
            var line = "The count was stopped.", pager = ""
            if let total = try? await running.task.value.total {
                line = summary(total: total, offset: offset, shown: shown)
                pager = pagerHTML(link: link, offset: offset, limit: limit, total: total, shown: shown)
            }
            try await writer.write(ByteBuffer(string: "<p class=\"search-summary search-total\" id=\"summary-total\">\(line)</p>\n" + pager + tail))
            try await writer.finish(nil)
        }
        return site.closesConnection(
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"], body: body), request)
    }

    /// Where the count goes in a page sent before it is known.
    static let countMarker = "<!--dd:count-->"

    /// Whether the page is sent before the count is known (``response(_:request:)``).
    var counting = false

    /// "12 matches", with ", showing the first N" (or "showing 101–200") when not all are shown.
    static func summary(total: Int, offset: Int = 0, shown: Int) -> String {
        let count = total == 1 ? "1 match" : "\(total) matches"
        if offset > 0 { return count + (shown > 0 ? ", showing \(offset + 1)–\(offset + shown)" : "") }
        return count + (total > shown ? ", showing the first \(shown)" : "")
    }

    /// This search's link without `offset`: its text, values, scope and origin.
    var link: String {
        var parts = ["q=" + Query.encode(text)]
        if !filter.isEmpty { parts.append("where=" + Query.encode(filter)) }
        if includeValues { parts.append("values=1") }
        if let scope { parts.append("in=" + site.source.path(of: scope).description) }
        if let origin { parts.append("from=" + Query.encode(origin.href)) }
        return "/search?" + parts.joined(separator: "&")
    }

    /// The Previous / Next links of the page of `link` at `offset` showing `shown` of `total`
    /// hits, `limit` a page; empty when all fit.
    static func pagerHTML(link: String, offset: Int, limit: Int, total: Int, shown: Int) -> String {
        func at(_ offset: Int) -> String { offset > 0 ? link + "&offset=\(offset)" : link }
        let previous = offset > 0, next = offset + shown < total
        guard previous || next else { return "" }
        var html = HTML()
        html.write("<nav class=\"search-pager\" aria-label=\"Result pages\">")
        if previous {
            html.write("<a class=\"button\" rel=\"prev\" id=\"search-previous\" href=\"")
            html.appendEscaped(at(max(0, offset - limit)))
            html.write("\">Previous</a>")
        }
        if next {
            html.write("<a class=\"button\" rel=\"next\" id=\"search-next\" href=\"")
            html.appendEscaped(at(offset + shown))
            html.write("\">Next</a>")
        }
        html.write("</nav>\n")
        return html.description
    }

    /// `title` split around the first case-insensitive occurrence of the search text, for `<mark>`.
    static func marked(_ title: String, _ text: String) -> [String: Any] {
        let needle = text.trimmingCharacters(in: .whitespaces)
        guard !needle.isEmpty, let r = title.range(of: needle, options: [.caseInsensitive]) else { return ["pre": title] }
        return ["pre": String(title[..<r.lowerBound]), "mark": ["text": String(title[r])], "post": String(title[r.upperBound...])]
    }

    /// The page of rows at any depth (under the scope) that ``filter`` matches, their titles
    /// containing `text` when it is not blank.
    /// - Throws: ``WebError`` 400 naming the column of an expression that does not parse.
    func filtered() throws(WebError) -> SearchPage {
        var filters = try FilterBar(expressions: [filter]).filter().map { [$0] } ?? []
        let needle = text.trimmingCharacters(in: .whitespaces)
        if !needle.isEmpty { filters.append(.condition(.init(field: "title", op: .contains, values: [needle]))) }
        guard let combined = Filter.all(filters) else { return self }
        let result: (hits: [NodeID], total: Int)
        do { result = try site.presenter.find(where: combined, under: scope, limit: offset + site.options.searchLimit) } catch {
            throw .badRequest("'where' \(error.description)")
        }
        var page = self
        page.found = (Self.present(Array(result.hits.dropFirst(offset)), site: site), result.total)
        return page
    }

    func render() -> String {
        var extra: [String: Any] = ["values": includeValues, "where": filter]
        if let origin {
            extra["from"] = origin.href
            if let level = origin.scope {
                extra["scope"] = ["path": site.source.path(of: level).description, "title": site.presenter.screenTitle(of: level), "checked": scope == level]
            }
        }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty || !filter.isEmpty, let found {
            extra["results"] = found.hits.map { hit -> [String: Any] in
                var c = Self.marked(hit.row.title, trimmed)
                c["parents"] = hit.parents.joined(separator: " › ")
                c["path"] = hit.row.path.description
                c["href"] = hit.href
                if hit.row.drills { c["drills"] = true }
                return c
            }
            if !found.hits.isEmpty { extra["hasResults"] = true }
            if counting {
                extra["counting"] = ["shown": found.hits.count]
            } else {
                extra["summary"] = Self.summary(total: found.total, offset: offset, shown: found.hits.count)
                extra["pager"] = Self.pagerHTML(
                    link: link, offset: offset, limit: site.options.searchLimit, total: found.total, shown: found.hits.count)
                if found.total == 0 { extra["none"] = true }
            }
        }
        let back = origin.map { ($0.label, $0.href) } ?? (site.presenter.rootTitle, "/")
        let chrome = Chrome(screen: "search", title: "Search", back: back, node: nil, query: text)
        return site.assets.render("search", chrome.context(site: site, extra: extra))
    }
}
