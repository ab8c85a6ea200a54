import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// `GET /events`: server-sent events, one `change` event per step of the model
/// (`data: {"revision": N, "origin": "apply", "paths": ["0.1"], "summary": "Rename of Ringtone to Chime",
/// "history": {"canUndo": true, "canRedo": false, "undo": "Rename of Ringtone to Chime"}}`: what the
/// step did and what Undo and Redo can do now), and a comment every 5 s so
/// connections that died without closing are noticed. Pages follow it to refresh in place.
///
/// Streams are capped (see ``StreamSlots``): ``WebServer/Options/maxEventStreamsPerSession`` per
/// browser session and ``WebServer/Options/maxEventStreamsPerClient`` per client address (429
/// past either), ``WebServer/Options/maxEventStreams`` in all (503); both with `Retry-After`.
/// A stream's slot is freed as soon as its client closes the connection.
///
/// On a server with accounts, `?presence=LEVEL` (repeated for each level a page shows) also makes
/// the page present there and adds `presence` events (see ``Site/joinPresence(_:lines:)``).
extension Site {
    func addEventRoutes(to router: Router<SiteContext>) {
        router.get("/events") { request, _ in
            guard let model else { throw WebError.notFound("This server is read-only: it has no changes to stream.") }
            let session = CSRFTokens.sessionID(in: request.headers[values: .cookie])
            let slot = try eventStreams.acquire(address: request.headers[.peerAddress], session: session)
                .mapError(streamRefusal).get()
            // A reader from whom rows are hidden is not told of changes to them (see ``AccessView/sees(_:)``).
            let reader = RequestState.current.flatMap { state in state.user.map { ($0.name, state.access?.hidesRows ?? false) } }
            let accounts = self.accounts
            let changes = await model.changes()
            let revision = await model.revision
            let access = RequestState.current?.access
            // With a history, Undo and Redo are the reader's own (see ``DocumentModel/history(for:)``).
            let author: HistoryAuthor? = keepsHistory ? HistoryAuthor.current : nil
            let stepsNow = author != nil ? await model.history(for: author!) : await model.history
            let history = (try? Responses.jsonData(access?.sees(stepsNow) ?? stepsNow)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
            let (lines, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
            let forward = Task {
                for await event in changes {
                    struct Payload: Encodable { var revision: Int, origin: String, paths: [String], summary: String, history: HistoryState }
                    var event = event
                    if let accounts, let (name, hides) = reader, hides {
                        guard let seen = accounts.current.policy.view(for: name, in: event.source).sees(event) else { continue }
                        event = seen
                    }
                    var mine = event.history
                    if let author {
                        let own = await model.history(for: author)
                        mine = access?.sees(own) ?? own
                    }
                    let payload = Payload(
                        revision: event.revision, origin: event.origin.rawValue, paths: event.paths.map(\.description), summary: event.summary,
                        history: mine)
                    let json = (try? Responses.jsonData(payload)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
                    continuation.yield("event: change\nid: \(event.revision)\ndata: \(json)\n\n")
                }
                continuation.finish()
            }
            let here: PresencePage?
            do { here = try joinPresence(request, lines: continuation) } catch {
                forward.cancel()
                slot.release()
                throw error
            }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    continuation.yield(": keep-alive\n\n")
                    here?.keepAlive()
                }
            }
            continuation.onTermination = { _ in
                forward.cancel()
                heartbeat.cancel()
                here?.end()
            }
            let watchesClient = canWatchDisconnect(request)
            let body = ResponseBody { writer in
                defer { forward.cancel(); heartbeat.cancel(); here?.end(); slot.release() }
                let page = here.map { ", \"page\": \"\($0.page)\"" } ?? ""
                try await writer.write(ByteBuffer(string: "retry: 1000\nevent: hello\ndata: {\"revision\": \(revision), \"history\": \(history)\(page)}\n\n"))
                // The stream ends with the model, when the server shuts down, or when the page goes
                // away: its connection's inbound side closes, which cancels the loop at once (a
                // failed write, at the latest the next heartbeat's, ends it too).
                func stream() async throws {
                    try await withGracefulShutdownHandler {
                        for await line in lines {
                            try await writer.write(ByteBuffer(string: line))
                        }
                    } onGracefulShutdown: {
                        continuation.finish()
                    }
                }
                if watchesClient {
                    try await request.body.consumeWithCancellationOnInboundClose { _ in try await stream() }
                } else {
                    try await stream()
                }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no"],
                body: body)
        }
    }

    /// The answer to a refused stream: 429 when the client holds its share, 503 when the process is full.
    func streamRefusal(_ refusal: StreamSlots.Refusal) -> WebError {
        let close = "close other pages of this server"
        switch refusal {
        case .session:
            return WebError(
                status: .tooManyRequests,
                message: "This browser already follows changes on \(eventStreams.perSession) pages: \(close), "
                    + "or start it with a larger --max-event-streams-per-session.",
                headers: [.retryAfter: "10"])
        case .address:
            return WebError(
                status: .tooManyRequests,
                message: "Your address already follows changes on \(eventStreams.perAddress) pages: \(close), "
                    + "or start it with a larger --max-event-streams-per-client.",
                headers: [.retryAfter: "10"])
        case .full:
            return WebError(
                status: .serviceUnavailable,
                message: "Too many open event streams (\(eventStreams.capacity)): \(close), "
                    + "or start it with a larger --max-event-streams.",
                headers: [.retryAfter: "10"])
        }
    }
}
