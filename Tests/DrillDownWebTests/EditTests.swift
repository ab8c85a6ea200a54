import DrillDownCore
import DrillDownWeb
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing

/// A settings document with a switch, a slider and a Play button (the Sounds example), served editable.
func editableApp() async throws -> (app: some ApplicationProtocol, model: DocumentModel) {
    let doc: Doc = .object([
        ("Title", .string("Settings")),
        ("Rows", .array([
            row("Sounds", [
                row("Vibrate", [], [("kind", .string("toggle")), ("enabled", .string("off"))]),
                row("Volume", [], [("kind", .string("volume")), ("volume", .int(60))]),
                row("Ringtone", [], [("kind", .string("sound")), ("plays", .int(0))]),
            ]),
            row("Display"),
            row("Privacy"),
        ])),
    ])
    let schemaDoc: Doc = .object([
        ("kinds", .object([
            ("toggle", .object([("controls", .array([.object([("switch", .string("enabled"))])]))])),
            ("volume", .object([("controls", .array([.object([
                ("slider", .string("volume")), ("min", .int(0)), ("max", .int(100)), ("step", .int(5)),
            ])]))])),
            ("sound", .object([("select", .string("action:play")), ("controls", .array([.object([("button", .string("Play")), ("action", .string("play"))])]))])),
        ])),
        ("actions", .object([("play", .object([("increment", .string("plays"))]))])),
    ])
    let schema = try Schema(tree: schemaDoc.tree)
    let model = DocumentModel(
        document: EditableDocument(source: DocumentSource(tree: doc.tree), schema: schema), actions: try ActionSet(schema: schema))
    let server = try await WebServer(model: model, schema: schema, dataFolder: nil)
    return (Application(router: server.makeRouter()), model)
}

/// The session cookie and token a first page view hands out (the token is in the page's
/// `csrf-token` meta tag and the `X-CSRF-Token` header).
func session(_ client: some TestClientProtocol) async throws -> (cookie: String, token: String) {
    try await client.execute(uri: "/", method: .get) { response in
        let cookie = String((response.headers[.setCookie] ?? "").split(separator: ";")[0])
        let token = response.headers[HTTPField.Name("X-CSRF-Token")!] ?? ""
        #expect(cookie.hasPrefix("dd_session="))
        #expect(token.count == 64)
        #expect(response.text.contains("<meta name=\"csrf-token\" content=\"\(token)\">"))
        return (cookie, token)
    }
}

extension TestClientProtocol {
    /// POSTs JSON to the edit API with the session's cookie and `token` as `X-CSRF-Token`.
    func edit(_ uri: String, _ body: String = "{}", cookie: String?, token: String?) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let cookie { headers[.cookie] = cookie }
        if let token { headers[HTTPField.Name("X-CSRF-Token")!] = token }
        return try await execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body)) { $0 }
    }
}

func titles(_ model: DocumentModel, under path: TreePath) async -> [String] {
    let source = await model.source
    let id = source.node(at: path)!
    return source.children(of: id).map { source.levelTitle(of: $0) }
}

@Suite("Editing")
struct EditTests {
    @Test("a write without the session's CSRF token is refused with 403 and changes nothing")
    func csrf() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            #expect(try await client.edit("/api/edit/add/1", #"{"title":"X"}"#, cookie: nil, token: nil).status == .forbidden)
            #expect(try await client.edit("/api/edit/add/1", #"{"title":"X"}"#, cookie: cookie, token: nil).status == .forbidden)
            let wrong = String(token.reversed())
            #expect(try await client.edit("/api/edit/add/1", #"{"title":"X"}"#, cookie: cookie, token: wrong).status == .forbidden)
            #expect(try await client.edit("/api/edit/add/1", #"{"title":"X"}"#, cookie: "dd_session=\(String(repeating: "a", count: 32))", token: token).status == .forbidden)
            // A made-up matching pair (another page on localhost can plant the cookie and post the
            // same value): the server never issued it, so it is refused.
            let madeUp = String(repeating: "0123456789abcdef", count: 2)
            for (cookie, sent) in [("dd_session=\(madeUp)", madeUp), ("dd_session=\(madeUp)", madeUp + madeUp),
                                   ("dd_csrf=\(madeUp)", madeUp)] {
                #expect(try await client.edit("/api/edit/add/1", #"{"title":"X"}"#, cookie: cookie, token: sent).status == .forbidden)
                let planted = try await client.execute(
                    uri: "/edit/add/1", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                    body: ByteBuffer(string: "title=X&csrf=\(sent)")) { $0 }
                #expect(planted.status == .forbidden)
            }
            let form = try await client.execute(
                uri: "/edit/add/1", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "title=X&csrf=\(wrong)")) { $0 }
            #expect(form.status == .forbidden)
            #expect(await model.revision == 0)
        }
    }

    @Test("add, rename, move, delete, undo and redo through the API change the model")
    func structure() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            var response = try await client.edit("/api/edit/add", #"{"title":"General"}"#, cookie: cookie, token: token)
            #expect(response.status == .ok)
            #expect(response.json["paths"] as? [String] == ["3"])
            #expect(await titles(model, under: .root) == ["Sounds", "Display", "Privacy", "General"])
            _ = try await client.edit("/api/edit/rename/1", #"{"title":"Screen"}"#, cookie: cookie, token: token)
            _ = try await client.edit("/api/edit/move/3", #"{"direction":"up"}"#, cookie: cookie, token: token)
            #expect(await titles(model, under: .root) == ["Sounds", "Screen", "General", "Privacy"])
            _ = try await client.edit("/api/edit/move/0", #"{"index":3}"#, cookie: cookie, token: token)
            #expect(await titles(model, under: .root) == ["Screen", "General", "Privacy", "Sounds"])
            _ = try await client.edit("/api/edit/delete/0", cookie: cookie, token: token)
            #expect(await titles(model, under: .root) == ["General", "Privacy", "Sounds"])
            response = try await client.edit("/api/edit/undo", cookie: cookie, token: token)
            #expect(response.json["changed"] as? Bool == true)
            #expect(await titles(model, under: .root) == ["Screen", "General", "Privacy", "Sounds"])
            _ = try await client.edit("/api/edit/redo", cookie: cookie, token: token)
            #expect(await titles(model, under: .root) == ["General", "Privacy", "Sounds"])
            // The pages read the current snapshot.
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { page in
                #expect(page.text.contains("General"))
                #expect(!page.text.contains(">Display<"))
            }
        }
    }

    @Test("the Go to field's example path (made once per revision) follows a rename on the next page")
    func goExampleFollowsEdits() async throws {
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { page in
                #expect(page.text.contains("placeholder=\"0.0 or Sounds/Vibrate\""))
            }
            let response = try await client.edit("/api/edit/rename/0.0", #"{"title":"Buzz"}"#, cookie: cookie, token: token)
            #expect(response.status == .ok)
            try await client.execute(uri: "/l/0", method: .get, headers: [.cookie: cookie]) { page in
                #expect(page.text.contains("placeholder=\"0.0 or Sounds/Buzz\""))
                #expect(!page.text.contains("Sounds/Vibrate"))
            }
        }
    }

    @Test("Done with an empty title adds nothing; a bad path or move into nowhere is a clear error")
    func emptyTitle() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            let response = try await client.edit("/api/edit/add/1", #"{"title":"   "}"#, cookie: cookie, token: token)
            #expect(response.status == .ok)
            #expect(response.json["changed"] as? Bool == false)
            #expect(await model.revision == 0)
            #expect(try await client.edit("/api/edit/delete/9.9", cookie: cookie, token: token).status == .notFound)
            #expect(try await client.edit("/api/edit/frobnicate/1", cookie: cookie, token: token).status == .notFound)
        }
    }

    @Test("switches, sliders, steppers and buttons operate through the core")
    func controls() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            _ = try await client.edit("/api/edit/set/0.0", #"{"control":"0"}"#, cookie: cookie, token: token)
            _ = try await client.edit("/api/edit/set/0.1", #"{"control":"volume","value":"73"}"#, cookie: cookie, token: token)
            for _ in 0 ..< 3 { _ = try await client.edit("/api/edit/set/0.2", #"{"control":"0"}"#, cookie: cookie, token: token) }
            _ = try await client.edit("/api/edit/run/0.2", #"{"action":"play"}"#, cookie: cookie, token: token)
            let source = await model.source
            #expect(source.attribute("enabled", of: source.node(at: [0, 0])!)?.bool == true)
            #expect(source.attribute("volume", of: source.node(at: [0, 1])!)?.number == 75)
            #expect(source.attribute("plays", of: source.node(at: [0, 2])!)?.number == 4)
        }
    }

    @Test("a plain form post redirects back (Post/Redirect/Get) and the delete confirmation page asks first")
    func forms() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            try await client.execute(uri: "/delete/1?back=/l/", method: .get, headers: [.cookie: cookie]) { page in
                #expect(page.status == .ok)
                #expect(page.text.contains("Delete “Display”"))
                #expect(page.text.contains(token))
            }
            try await client.execute(uri: "/add/0?back=/%5Cevil.example", method: .get, headers: [.cookie: cookie]) { page in
                #expect(!page.text.contains("evil.example"))
            }
            try await client.execute(
                uri: "/edit/delete/1", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(token)&back=%2Fl%2F0%3Fedit%3D1")) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/l/0?edit=1")
            }
            try await client.execute(
                uri: "/edit/undo", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(token)&back=https%3A%2F%2Fevil.example%2F")) { response in
                #expect(response.headers[.location] == "/")
            }
            #expect(await titles(model, under: .root) == ["Sounds", "Display", "Privacy"])
            try await client.execute(uri: "/l/0?edit=1", method: .get, headers: [.cookie: cookie]) { page in
                #expect(page.text.contains("href=\"/rename/0.0?back="))  // the title, edited in place with the script
                #expect(page.text.contains("/delete/0.0"))
                #expect(page.text.contains("action=\"/edit/delete/0.0\""))
                #expect(page.text.contains("role=\"switch\""))
                #expect(page.text.contains("type=\"range\""))
                #expect(page.text.contains("action=\"/edit/run/0.2\""))
                #expect(!page.text.contains("Start the server with --editable to run actions"))
            }
        }
    }
}
