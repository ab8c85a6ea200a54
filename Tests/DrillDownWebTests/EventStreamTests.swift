import DrillDownCore
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

@testable import DrillDownWeb

/// The caps on `/events` streams: per browser session, per client address and in all, so one
/// client cannot take every stream; and a stream's slot is freed the moment it ends.
@Suite("EventStreams")
struct EventStreamTests {
    let sessionA = String(repeating: "a", count: 32)
    let sessionB = String(repeating: "b", count: 32)

    @Test("a session or an address past its share is refused while other clients still get slots")
    func shares() throws {
        let slots = StreamSlots(capacity: 10, perAddress: 3, perSession: 2)
        var held = [try slots.acquire(address: "192.0.2.1", session: sessionA).get(),
                    try slots.acquire(address: "192.0.2.1", session: sessionA).get()]
        #expect(throws: StreamSlots.Refusal.session) { try slots.acquire(address: "192.0.2.9", session: sessionA).get() }
        held.append(try slots.acquire(address: "192.0.2.1", session: sessionB).get())
        #expect(throws: StreamSlots.Refusal.address) { try slots.acquire(address: "192.0.2.1", session: nil).get() }
        #expect(throws: StreamSlots.Refusal.address) { try slots.acquire(address: "192.0.2.1", session: String(repeating: "c", count: 32)).get() }
        // Another address, and another session there, are served.
        held.append(try slots.acquire(address: "192.0.2.2", session: sessionB).get())
        held.append(try slots.acquire(address: "192.0.2.2", session: nil).get())
        #expect(slots.inUse == 5)
        withExtendedLifetime(held) {}
    }

    @Test("past the process's cap every client is refused; a client over its share is told so first")
    func full() throws {
        let slots = StreamSlots(capacity: 2, perAddress: 2, perSession: 1)
        let held = [try slots.acquire(address: "192.0.2.1", session: sessionA).get(),
                    try slots.acquire(address: "192.0.2.2", session: nil).get()]
        #expect(throws: StreamSlots.Refusal.full) { try slots.acquire(address: "192.0.2.3", session: sessionB).get() }
        #expect(throws: StreamSlots.Refusal.session) { try slots.acquire(address: "192.0.2.3", session: sessionA).get() }
        withExtendedLifetime(held) {}
    }

    @Test("a released slot is free at once, released once however often it is released")
    func release() throws {
        let slots = StreamSlots(capacity: 4, perAddress: 1, perSession: 1)
        var slot: StreamSlots.Slot? = try slots.acquire(address: "192.0.2.1", session: sessionA).get()
        slot?.release()
        slot?.release()
        #expect(slots.inUse == 0)
        let again = try slots.acquire(address: "192.0.2.1", session: sessionA).get()
        slot = nil  // its deinit releases nothing more
        #expect(slots.inUse == 1)
        #expect(throws: StreamSlots.Refusal.address) { try slots.acquire(address: "192.0.2.1", session: nil).get() }
        withExtendedLifetime(again) {}
    }

    @Test("/events past a session's or an address's share answers 429, past the process's cap 503, with Retry-After")
    func refusals() async throws {
        var options = WebServer.Options()
        options.maxEventStreams = 3
        options.maxEventStreamsPerClient = 2
        options.maxEventStreamsPerSession = 1
        let server = try await liveServer(options)
        let streams = server.site.eventStreams
        try await Application(router: server.makeRouter()).test(.router) { [sessionA, sessionB] client in
            func events(_ address: String, _ session: String?) async throws -> (HTTPResponse.Status, String?, String) {
                var headers: HTTPFields = [.peerAddress: address]
                if let session { headers[.cookie] = "dd_session=\(session)" }
                return try await client.execute(uri: "/events", method: .get, headers: headers) {
                    ($0.status, $0.headers[.retryAfter], $0.text)
                }
            }
            let first = try streams.acquire(address: "192.0.2.1", session: sessionA).get()
            var (status, retry, text) = try await events("192.0.2.2", sessionA)
            #expect(status == .tooManyRequests && retry != nil && text.contains("--max-event-streams-per-session"))
            let second = try streams.acquire(address: "192.0.2.1", session: nil).get()
            (status, retry, text) = try await events("192.0.2.1", sessionB)
            #expect(status == .tooManyRequests && retry != nil && text.contains("--max-event-streams-per-client"))
            let third = try streams.acquire(address: "192.0.2.3", session: nil).get()
            (status, retry, text) = try await events("192.0.2.4", sessionB)
            #expect(status == .serviceUnavailable && retry != nil && text.contains("--max-event-streams"))
            withExtendedLifetime([first, second, third]) {}
        }
    }

    @Test("clients are counted by IPv4 address, IPv6 /64, and an IPv4-mapped IPv6 address as IPv4")
    func clientNames() throws {
        #expect(PeerAddressHandler.clientName(try SocketAddress(ipAddress: "192.0.2.7", port: 1)) == "192.0.2.7")
        #expect(PeerAddressHandler.clientName(try SocketAddress(ipAddress: "2001:db8:1:2:aaaa::1", port: 1)) == "2001:db8:1:2::/64")
        #expect(PeerAddressHandler.clientName(try SocketAddress(ipAddress: "2001:db8:1:2:bbbb::9", port: 1)) == "2001:db8:1:2::/64")
        #expect(PeerAddressHandler.clientName(try SocketAddress(ipAddress: "::ffff:192.0.2.7", port: 1)) == "192.0.2.7")
    }

    /// A server over a model (so it streams `/events`) with `options`.
    func liveServer(_ options: WebServer.Options) async throws -> WebServer {
        let schema = Schema()
        let model = DocumentModel(
            document: EditableDocument(source: DocumentSource(tree: seed000.tree), schema: schema), actions: try ActionSet(schema: schema))
        return try await WebServer(model: model, schema: schema, dataFolder: nil, options: options)
    }
}
