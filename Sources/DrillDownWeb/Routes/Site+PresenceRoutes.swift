import DrillDownCore
import Foundation
import Hummingbird

/// Presence on a live server with accounts (see ``PresenceHub``):
///
/// - `GET /events?presence=LEVEL[&editing=ROW]` joins the page to the level (its `hello` event
///   then carries the page's id, `"page": "…"`) and adds `presence` events to the stream, one
///   each time who else is on the level changes, as the reader may see it:
///   `data: {"level": "0", "here": [{"user": "ana lima", "initials": "AL", "editing": ["0.2"]}]}`.
///   The page is gone when the stream ends.
/// - `POST /api/presence` (`{"page": "…", "editing": "0.2"}`, `""` for none; with the CSRF
///   token) sets the row the page is editing: a row the user may not change is refused (403),
///   a page that is not theirs or not open here answers 404.
///
/// Without accounts neither exists: `?presence` is ignored, and the route is not registered.
extension Site {
    func addPresenceRoutes(to router: Router<SiteContext>, hub: PresenceHub) {
        router.post("/api/presence") { request, _ in
            let form = try await EditRequest.read(request, api: true, maxBytes: options.maxBodyBytes, tokens: csrf)
            guard let user = RequestState.current?.user, let page = form["page"] else {
                throw WebError.badRequest("Send the page's id as 'page' (from the hello event of /events?presence=LEVEL).")
            }
            let text = form["editing"] ?? ""
            guard let editing = TreePath(text) else { throw WebError.badRequest("'editing' must be a TreePath such as 0.2, or empty: '\(text)' is not.") }
            let row = editing.isRoot ? nil : editing
            if let row, let access = RequestState.current?.access {
                do { try access.requireChange(at: row) } catch let error as AccessError { throw WebError.forbidden(error.message) }
            }
            guard hub.setEditing(row, page: page, user: user.name) else {
                throw WebError.notFound("No page '\(page)' of \(user.name) is open on this server.")
            }
            return try Responses.json(["page": page, "editing": row?.description ?? ""])
        }
    }

    /// Joins the page of an `/events` stream that asked for presence (`?presence=LEVEL`) and starts
    /// sending it `presence` events through `lines`; `nil` (nothing joined, nothing sent) without
    /// accounts, without a signed-in user or without the parameter.
    func joinPresence(_ request: Request, lines: AsyncStream<String>.Continuation) -> PresencePage? {
        guard let hub = presence, let accounts, let model, let user = RequestState.current?.user else { return nil }
        let query = Query(request.uri.query)
        guard let levelText = query["presence"], let level = TreePath(levelText) else { return nil }
        let editing = query["editing"].flatMap { TreePath($0) }.flatMap { $0.isRoot ? nil : $0 }
        let page = hub.newPage()
        let name = user.name
        hub.join(PresenceBeat(page: page, user: name, level: level, editing: editing))
        let (subscription, changes) = hub.subscribe()
        let sending = Task {
            var last: [PresenceVisitor]?
            var iterator = changes.makeAsyncIterator()
            repeat {
                let (source, revision, _) = model.versionedState
                let access = accounts.view(for: name, in: source, revision: revision)
                let visitors = hub.visitors(of: level, for: name, mayRead: access.mayRead)
                if visitors != last {
                    last = visitors
                    lines.yield("event: presence\ndata: \(Self.presenceJSON(level: level, visitors))\n\n")
                }
            } while await iterator.next() != nil && !Task.isCancelled
        }
        return PresencePage(hub: hub, page: page, subscription: subscription, sending: sending)
    }

    /// A `presence` event's data.
    static func presenceJSON(level: TreePath, _ visitors: [PresenceVisitor]) -> String {
        struct Visitor: Encodable { var user: String, initials: String, editing: [String] }
        struct Payload: Encodable { var level: String, here: [Visitor] }
        let payload = Payload(
            level: level.description,
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
