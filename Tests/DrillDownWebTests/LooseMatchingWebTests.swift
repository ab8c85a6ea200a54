import DrillDownCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import DrillDownWeb

/// Issue 9, item 18 on the web: the run route follows the core's rule (a row runs only what its
/// kind offers), and a title path naming two siblings is an error page listing both TreePaths.
@Suite("Web: ambiguous title paths and actions a kind does not offer")
struct LooseMatchingWebTests {
    @Test("running play on a switch row or on the root is refused; on a sound row it runs")
    func runFollowsKinds() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            let refused = try await client.edit("/api/edit/run/0.0", #"{"action":"play"}"#, cookie: cookie, token: token)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("kind 'toggle'"))
            #expect(try await client.edit("/api/edit/run/", #"{"action":"play"}"#, cookie: cookie, token: token).status != .ok)
            #expect(await model.revision == 0)
            let ran = try await client.edit("/api/edit/run/0.2", #"{"action":"play"}"#, cookie: cookie, token: token)
            #expect(ran.status == .ok)
            #expect(await model.revision == 1)
        }
    }

    @Test("a title path matching two siblings is a 400 error page naming both TreePaths")
    func ambiguousTitlePath() async throws {
        let doc: Doc = .object([("Title", .string("Root")), ("Rows", .array([row("Dup", [row("A")]), row("Other"), row("Dup")]))])
        let app = Application(router: try WebServer(presenter: Presenter(source: DocumentSource(tree: doc.tree)), dataFolder: nil).makeRouter())
        try await app.test(.router) { client in
            try await client.execute(uri: "/l/Dup", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("2 children titled"))
                #expect(response.text.contains("0, 2"))
            }
            try await client.execute(uri: "/api/level/Dup", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("0, 2"))
            }
        }
    }
}
