import Foundation
import DrillDownCore
import Hummingbird

/// The search screen: a field, and every match with its title path and TreePath; choosing one
/// opens its level (when it drills) or its detail.
struct SearchPage {
    let site: Site
    let text: String
    let includeValues: Bool
    /// The hits and total of a non-blank `text`, searched by the route (see ``hits(site:text:includeValues:limit:request:)``).
    var found: (hits: [Hit], total: Int)?

    /// One search hit, for the page and the API.
    struct Hit {
        var row: Row
        var titlePath: String
        var href: String
    }

    /// Searches on the site's ``SearchPool`` and presents the first `limit` hits.
    /// - Throws: `CancellationError` when the client went away meanwhile.
    static func hits(site: Site, text: String, includeValues: Bool, limit: Int, request: Request) async throws -> (hits: [Hit], total: Int) {
        let result = try await site.search(SearchQuery(text, includeValues: includeValues, limit: limit), request: request)
        return (present(result.hits, site: site), result.total)
    }

    /// The hits as the page and the API show them.
    static func present(_ ids: [NodeID], site: Site) -> [Hit] {
        ids.map { id -> Hit in
            let row = site.presenter.row(for: id)
            return Hit(row: row, titlePath: site.source.titlePath(of: id), href: row.drills ? Links.level(row.path) : Links.detail(row.path))
        }
    }

    /// The search page sent in two parts when the first hits come before the count: the page
    /// with those hits at once, then, when the search ends, the count (below the list; the
    /// page's script moves it up into the summary) and the rest of the page.
    /// - Throws: `CancellationError` when the client went away before the first hits.
    static func response(site: Site, text: String, includeValues: Bool, request: Request) async throws -> Response {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let running = try await site.startSearch(
            SearchQuery(trimmed, includeValues: includeValues, limit: site.options.searchLimit), request: request)
        guard let early = running.early else {
            let result = try await running.task.value
            let page = SearchPage(site: site, text: text, includeValues: includeValues, found: (present(result.hits, site: site), result.total))
            return site.closesConnection(Responses.html(page.render()), request)
        }
        var page = SearchPage(site: site, text: text, includeValues: includeValues, found: (present(early, site: site), early.count))
        page.counting = true
        let html = page.render()
        let split = html.range(of: countMarker) ?? html.endIndex ..< html.endIndex
        let head = String(html[..<split.lowerBound]), tail = String(html[split.upperBound...])
        let shown = early.count
        let body = ResponseBody { writer in
            do {
                try await writer.write(ByteBuffer(string: head))
            } catch {
                running.task.cancel()
                throw error
            }
            let line: String
            do { line = summary(total: try await running.task.value.total, shown: shown) } catch { line = "The count was stopped." }
            try await writer.write(ByteBuffer(string: "<p class=\"search-summary search-total\" id=\"summary-total\">\(line)</p>\n" + tail))
            try await writer.finish(nil)
        }
        return site.closesConnection(
            Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"], body: body), request)
    }

    /// Where the count goes in a page sent before it is known.
    static let countMarker = "<!--dd:count-->"

    /// Whether the page is sent before the count is known (``response(site:text:includeValues:request:)``).
    var counting = false

    /// "12 matches", with ", showing the first N" when not all are shown.
    static func summary(total: Int, shown: Int) -> String {
        (total == 1 ? "1 match" : "\(total) matches") + (total > shown ? ", showing the first \(shown)" : "")
    }

    func render() -> String {
        var extra: [String: Any] = ["values": includeValues]
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if !trimmed.isEmpty, let found {
            extra["results"] = found.hits.map { hit -> [String: Any] in
                var c: [String: Any] = ["title": hit.row.title, "titlePath": hit.titlePath, "path": hit.row.path.description, "href": hit.href]
                if !hit.row.subtitle.isEmpty { c["subtitle"] = hit.row.subtitle }
                if hit.row.drills { c["drills"] = true }
                return c
            }
            if !found.hits.isEmpty { extra["hasResults"] = true }
            if counting {
                extra["counting"] = ["shown": found.hits.count]
            } else {
                extra["summary"] = Self.summary(total: found.total, shown: found.hits.count)
                if found.total == 0 { extra["none"] = true }
            }
        }
        let chrome = Chrome(screen: "search", title: "Search", back: (site.presenter.rootTitle, "/"), node: nil, query: text)
        return site.assets.render("search", chrome.context(site: site, extra: extra))
    }
}
