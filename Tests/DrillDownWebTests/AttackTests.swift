import DrillDownCore
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import DrillDownWeb

/// Requests an attacker would send: another host name (DNS rebinding), writes from another
/// origin, outline states that make the server expand the whole tree again and again.
let hostField = HTTPField.Name("Host")!

@Suite("Attacks")
struct AttackTests {
    func seedServer(_ options: WebServer.Options = .init()) throws -> WebServer {
        try WebServer(presenter: Presenter(source: DocumentSource(tree: seed000.tree)), dataFolder: nil, options: options)
    }

    func status(_ client: some TestClientProtocol, host: String, uri: String = "/") async throws -> HTTPResponse.Status {
        try await client.execute(uri: uri, method: .get, headers: [hostField: host]) { $0.status }
    }

    @Test("a Host the server was not started for gets 421 and no page (DNS rebinding)")
    func hostCheck() async throws {
        try await Application(router: try seedServer().makeRouter()).test(.router) { client in
            for host in ["rebind.attacker.example", "rebind.attacker.example:8080", "127.0.0.1.attacker.example",
                         "localhost.attacker.example", "evil", "", "local host", "localhost:http"] {
                try await client.execute(uri: "/", method: .get, headers: [hostField: host]) { response in
                    #expect(response.status == .misdirectedRequest, "\(host)")
                    #expect(response.headers[.contentType] == "text/plain; charset=utf-8")
                    #expect(!response.text.contains("<"), "\(host)")
                }
                #expect(try await status(client, host: host, uri: "/api/level") == .misdirectedRequest, "\(host)")
            }
            for host in ["127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:1", "localhost.", "[::1]", "[::1]:8080"] {
                #expect(try await status(client, host: host) == .ok, "\(host)")
            }
        }
        var options = WebServer.Options()
        options.allowedHosts = ["drill.example.com"]
        try await Application(router: try seedServer(options).makeRouter(host: "192.168.1.5")).test(.router) { client in
            for host in ["drill.example.com", "Drill.Example.com:443", "192.168.1.5:8080", "localhost:8080"] {
                let answer = try await status(client, host: host)
                #expect(answer == .ok, "\(host)")
            }
            for host in ["example.com", "10.0.0.1:8080"] {
                let answer = try await status(client, host: host)
                #expect(answer == .misdirectedRequest, "\(host)")
            }
        }
        try await Application(router: try seedServer().makeRouter(host: "0.0.0.0")).test(.router) { client in
            let answers = [try await status(client, host: "10.0.0.1:8080"), try await status(client, host: "[fe80::1]:8080"),
                           try await status(client, host: "rebind.attacker.example")]
            #expect(answers == [.ok, .ok, .misdirectedRequest])
        }
    }

    @Test("an editable server's page for a foreign Host carries no CSRF token")
    func hostCheckEditable() async throws {
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get, headers: [hostField: "rebind.attacker.example:8080"]) { response in
                #expect(response.status == .misdirectedRequest)
                #expect(!response.text.contains("csrf"))
                #expect(response.headers[HTTPField.Name("X-CSRF-Token")!] == nil)
            }
        }
    }

    @Test("writes from another origin or site are refused with 403, even with a valid token")
    func foreignOrigin() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            func post(_ extra: HTTPFields) async throws -> TestResponse {
                var headers: HTTPFields = [.contentType: "application/json", .cookie: cookie, hostField: "localhost:8080"]
                headers[HTTPField.Name("X-CSRF-Token")!] = token
                headers.append(contentsOf: extra)
                return try await client.execute(uri: "/api/edit/add/1", method: .post, headers: headers,
                                                body: ByteBuffer(string: #"{"title":"X"}"#)) { $0 }
            }
            let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
            for extra: HTTPFields in [
                [.origin: "http://localhost:3000"], [.origin: "http://127.0.0.1:8080"], [.origin: "https://evil.example"],
                [.origin: "null"], [.origin: "http://localhost:8080.evil.example"], [secFetchSite: "cross-site"],
                [secFetchSite: "same-site"], [.origin: "http://localhost:8080", secFetchSite: "cross-site"],
                [.origin: "null", secFetchSite: "cross-site"], [.origin: "http://localhost:3000", secFetchSite: "same-origin"],
            ] {
                let response = try await post(extra)
                #expect(response.status == .forbidden, "\(extra)")
                #expect((response.json["error"] as? String ?? "").contains("refused"), "\(extra)")
            }
            #expect(await model.revision == 0)
            // The page's own origin, as a browser sends it.
            let own = try await post([.origin: "http://localhost:8080", secFetchSite: "same-origin"])
            #expect(own.status == .ok)
            #expect(await model.revision == 1)
            // A form of this server's own pages: `Referrer-Policy: no-referrer` makes the browser send
            // `Origin: null`, and `Sec-Fetch-Site` vouches for it.
            #expect(try await post([.origin: "null", secFetchSite: "same-origin"]).status == .ok)
            #expect(await model.revision == 2)
        }
    }

    @Test("expand-all is built once per revision, however many distinct closed lists are asked for")
    func outlineCost() async throws {
        let server = try seedServer()
        let source = server.site.basePresenter.source
        try await Application(router: server.makeRouter()).test(.router) { client in
            for i in 0 ..< 40 {
                let closed = "5,\(i % 5 + 1),3.0.\(i)"
                try await client.execute(uri: "/api/outline?all=1&closed=\(closed)&limit=1000", method: .get) { response in
                    #expect(response.status == .ok)
                    var state = OutlineState()
                    state.all = true
                    state.closed = try OutlineState.paths(closed, name: "closed")
                    let expected = state.outline(of: Presenter(source: source)).visibleCount
                    #expect(response.json["total"] as? Int == expected, "\(closed)")
                }
            }
        }
        #expect(server.site.outlines.expandAllBuilds == 1)
    }

    @Test("event stream slots are capped and freed when a stream ends")
    func streamSlots() {
        let slots = StreamSlots(capacity: 2)
        var a = slots.acquire()
        let b = slots.acquire()
        #expect(a != nil && b != nil)
        #expect(slots.acquire() == nil)
        a = nil
        #expect(slots.inUse == 1)
        #expect(slots.acquire() != nil)
        withExtendedLifetime(b) {}
    }

    @Test("CSRF tokens verify only for the session they were issued for")
    func tokens() {
        let tokens = CSRFTokens(), other = CSRFTokens()
        let id = CSRFTokens.newSessionID()
        #expect(id.count == 32)
        #expect(tokens.verify(tokens.token(for: id), session: id))
        #expect(!tokens.verify(other.token(for: id), session: id))
        #expect(!tokens.verify(tokens.token(for: CSRFTokens.newSessionID()), session: id))
        #expect(!tokens.verify(id, session: id))
        #expect(!tokens.verify("", session: id))
        // RFC 4231 test case 2: HMAC-SHA256("Jefe", "what do ya want for nothing?").
        #expect(CSRFTokens(secret: Array("Jefe".utf8)).token(for: "what do ya want for nothing?")
            == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
