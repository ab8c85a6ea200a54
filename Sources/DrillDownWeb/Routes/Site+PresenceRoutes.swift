import DrillDownCore
import Foundation
import Hummingbird

/// Presence on a live server with accounts (see ``PresenceHub``):
///
/// - `GET /events?presence=LEVEL[&presence=LEVEL…][&editing=ROW]` joins the page to the levels
///   whose rows it shows (a level page: one; an outline or columns page: several) and adds
///   `presence` events to the stream, one each time who else shows rows of those levels changes,
///   as the reader may see it (its `hello` event then carries the page's id, `"page": "…"`):
///   `data: {"level": "0", "levels": ["0"], "here": [{"user": "ana lima", "initials": "AL", "editing": ["0.2"]}]}`.
///   The page is gone when the stream ends.
/// - `POST /api/presence` (`{"page": "…", "editing": "0.2", "levels": ["", "0"]}`, with the CSRF
///   token) sets the row the page is editing (`""` for none) and the levels it shows; a field
///   left out stays as it was. A row the user may not change is refused (403), a page that is
///   not theirs or not open here answers 404.
///
/// Without accounts neither exists: `?presence` is ignored, and the route is not registered.
extension Site {
    func addPresenceRoutes(to router: Router<SiteContext>, hub: PresenceHub) {
        router.post("/api/presence") { request, _ in
            let form = try await EditRequest.read(request, api: true, maxBytes: options.maxBodyBytes, tokens: csrf)
            guard let user = RequestState.current?.user, let page = form["page"] else {
                throw WebError.badRequest("Send the page's id as 'page' (from the hello event of /events?presence=LEVEL).")
            }
            var editing: TreePath?? = nil
            if let text = form["editing"] {
                guard let path = TreePath(text) else { throw WebError.badRequest("'editing' must be a TreePath such as 0.2, or empty: '\(text)' is not.") }
                let row = path.isRoot ? nil : path
                if let row, let access = RequestState.current?.access {
                    do { try access.requireChange(at: row) } catch let error as AccessError { throw WebError.forbidden(error.message) }
                }
                editing = .some(row)
            }
            let levels = try form.list("levels").map { texts throws(WebError) in try Self.presenceLevels(texts, field: "levels") }
            guard hub.update(page: page, user: user.name, editing: editing, levels: levels) else {
                throw WebError.notFound("No page '\(page)' of \(user.name) is open on this server.")
            }
            return try Responses.json(["page": page, "editing": form["editing"] ?? ""])
        }
    }

    /// The levels a page names (`presence=` of `/events`, `levels` of `/api/presence`): TreePaths,
    /// the root as `""`; at most ``maxPresenceLevels``.
    static func presenceLevels(_ texts: [String], field: String) throws(WebError) -> [TreePath] {
        guard texts.count <= maxPresenceLevels else {
            throw WebError.badRequest("'\(field)' names \(texts.count) levels: at most \(maxPresenceLevels) are taken.")
        }
        var levels: [TreePath] = []
        for text in texts {
            guard let level = TreePath(text) else { throw WebError.badRequest("'\(field)' must list TreePaths such as 0.2 ('' for the root): '\(text)' is not.") }
            if !levels.contains(level) { levels.append(level) }
        }
        return levels
    }

    /// The most levels one page may be present on (an outline shows the rows of at most a few hundred).
    static let maxPresenceLevels = 500

    /// Joins the page of an `/events` stream that asked for presence (`?presence=LEVEL`, repeated
    /// for each level the page shows) and starts sending it `presence` events through `lines`;
    /// `nil` (nothing joined, nothing sent) without accounts, without a signed-in user or without
    /// the parameter.
    func joinPresence(_ request: Request, lines: AsyncStream<String>.Continuation) throws(WebError) -> PresencePage? {
        guard let hub = presence, let accounts, let model, let user = RequestState.current?.user else { return nil }
        let query = Query(request.uri.query)
        let texts = query.all("presence")
        guard !texts.isEmpty else { return nil }
        let levels = try Self.presenceLevels(texts, field: "presence")
        let editing = query["editing"].flatMap { TreePath($0) }.flatMap { $0.isRoot ? nil : $0 }
        let page = hub.newPage()
        let name = user.name
        hub.join(PresenceBeat(page: page, user: name, levels: levels, editing: editing))
        let (subscription, changes) = hub.subscribe()
        let sending = Task {
            var last: (levels: [TreePath], here: [PresenceVisitor])?
            var iterator = changes.makeAsyncIterator()
            repeat {
                let (source, revision, _) = model.versionedState
                let access = accounts.view(for: name, in: source, revision: revision)
                guard let now = hub.visitors(on: page, mayRead: access.mayRead) else { break }
                if now.levels != last?.levels || now.here != last?.here {
                    last = now
                    lines.yield("event: presence\ndata: \(Self.presenceJSON(levels: now.levels, now.here))\n\n")
                }
            } while await iterator.next() != nil && !Task.isCancelled
        }
        return PresencePage(hub: hub, page: page, subscription: subscription, sending: sending)
    }

    /// A `presence` event's data: the page's first level (what a level page compares with its
    /// own), all its levels, and who else is there.
    static func presenceJSON(levels: [TreePath], _ visitors: [PresenceVisitor]) -> String {
        struct Visitor: Encodable { var user: String, initials: String, editing: [String] }
        struct Payload: Encodable { var level: String, levels: [String], here: [Visitor] }
        let payload = Payload(
            level: (levels.first ?? .root).description, levels: levels.map(\.description),
            here: visitors.map { Visitor(user: $0.user, initials: $0.initials, editing: $0.editing.map(\.description)) })
        return (try? Responses.jsonData(payload)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// One page's presence, while its `/events` stream is open.
struct PresencePage: Sendable {
    let hub: PresenceHub
    /// The page's id (sent in the `hello` event).
    let page: String
    let subscription: Int
    let sending: Task<Void, Never>

    /// The stream's keep-alive: the page is still open.
    func keepAlive() { hub.keepAlive(page) }

    /// The stream ended: the page is gone.
    func end() {
        sending.cancel()
        hub.unsubscribe(subscription)
        hub.leave(page)
    }
}
