import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird
import ServiceLifecycle

/// `GET /events`: server-sent events, one `change` event per step of the model
/// (`data: {"revision": N, "origin": "apply", "paths": ["0.1"]}`), and a comment every 5 s so
/// closed connections are noticed. Pages follow it to refresh in place. At most
/// ``WebServer/Options/maxEventStreams`` streams are open at once; past that the answer is 503
/// with `Retry-After`.
extension Site {
    func addEventRoutes(to router: Router<BasicRequestContext>) {
        router.get("/events") { _, _ in
            guard let model else { throw WebError.notFound("This server is read-only: it has no changes to stream.") }
            guard let slot = eventStreams.acquire() else {
                throw WebError(
                    status: .serviceUnavailable,
                    message: "Too many open event streams (\(eventStreams.capacity)): close other pages of this server, "
                        + "or start it with a larger --max-event-streams.",
                    headers: [.retryAfter: "10"])
            }
            let changes = await model.changes()
            let revision = await model.revision
            let (lines, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
            let forward = Task {
                for await event in changes {
                    struct Payload: Encodable { var revision: Int, origin: String, paths: [String] }
                    let payload = Payload(revision: event.revision, origin: event.origin.rawValue, paths: event.paths.map(\.description))
                    let json = (try? JSONEncoder().encode(payload)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
                    continuation.yield("event: change\nid: \(event.revision)\ndata: \(json)\n\n")
                }
                continuation.finish()
            }
            let heartbeat = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(5))
                    continuation.yield(": keep-alive\n\n")
                }
            }
            continuation.onTermination = { _ in
                forward.cancel()
                heartbeat.cancel()
            }
            let body = ResponseBody { writer in
                defer { forward.cancel(); heartbeat.cancel(); withExtendedLifetime(slot) {} }
                try await writer.write(ByteBuffer(string: "retry: 1000\nevent: hello\ndata: {\"revision\": \(revision)}\n\n"))
                // The stream ends with the model, when the page goes away, or when the server shuts down.
                try await withGracefulShutdownHandler {
                    for await line in lines {
                        try await writer.write(ByteBuffer(string: line))
                    }
                } onGracefulShutdown: {
                    continuation.finish()
                }
                try await writer.finish(nil)
            }
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", HTTPField.Name("X-Accel-Buffering")!: "no"],
                body: body)
        }
    }
}
