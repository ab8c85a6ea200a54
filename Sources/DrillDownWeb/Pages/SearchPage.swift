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
        let hits = result.hits.map { id -> Hit in
            let row = site.presenter.row(for: id)
            return Hit(row: row, titlePath: site.source.titlePath(of: id), href: row.drills ? Links.level(row.path) : Links.detail(row.path))
        }
        return (hits, result.total)
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
            extra["total"] = found.total
            if !found.hits.isEmpty { extra["hasResults"] = true }
            extra["summary"] = found.total == 1 ? "1 match" : "\(found.total) matches"
            if found.total > found.hits.count { extra["truncated"] = ["shown": found.hits.count] }
            if found.total == 0 { extra["none"] = true }
        }
        let chrome = Chrome(screen: "search", title: "Search", back: (site.presenter.rootTitle, "/"), node: nil, query: text)
        return site.assets.render("search", chrome.context(site: site, extra: extra))
    }
}
