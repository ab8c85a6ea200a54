import DrillDownCore
import DrillDownWeb
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing

/// The detail's Edit form and `/edit/update/PATH` (issue 30): a row's fields as inputs, only
/// changed fields submitted, refusals shown next to their field.
@Suite("Editing fields")
struct FieldEditTests {
    func post(_ client: some TestClientProtocol, _ uri: String, _ body: String, cookie: String) async throws -> TestResponse {
        try await client.execute(
            uri: uri, method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: body)) { $0 }
    }

    func volume(_ model: DocumentModel) async -> String? {
        let source = await model.source
        return source.attributes(of: source.node(at: [0, 1])!).first { $0.key == "volume" }?.value.text
    }

    @Test("the detail's Edit mode is a form of typed inputs posted to /edit/update, with Cancel and Done in the bar")
    func editForm() async throws {
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, _) = try await session(client)
            try await client.execute(uri: "/d/0.1", method: .get, headers: [.cookie: cookie]) { page in
                #expect(page.text.contains("id=\"fields-edit\" href=\"/d/0.1?edit=1\""))
                #expect(!page.text.contains("fields-form"))
            }
            try await client.execute(uri: "/d/0.1?edit=1", method: .get, headers: [.cookie: cookie]) { page in
                let html = page.text
                #expect(html.contains("<form class=\"fields-form\" id=\"fields-form\" method=\"post\" action=\"/edit/update/0.1\" novalidate"))
                #expect(html.contains("id=\"fields-cancel\" href=\"/d/0.1\""))
                #expect(html.contains("form=\"fields-form\" class=\"nav-button\" id=\"fields-done\""))
                #expect(html.contains("name=\"f.title\" required value=\"Volume\""))
                #expect(html.contains("type=\"text\" id=\"edit-field-2\" name=\"f.volume\" value=\"60\""))
                #expect(html.contains("<input type=\"hidden\" name=\"o.volume\" value=\"60\">"))
            }
        }
    }

    @Test("a form post submits only changed fields; a refusal answers the form again with the message by its field")
    func formPost() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            let same = try await post(client, "/edit/update/0.1", "csrf=\(token)&back=%2Fd%2F0.1&f.title=Volume&o.title=Volume&f.volume=60&o.volume=60", cookie: cookie)
            #expect(same.status == .seeOther)
            #expect(await model.revision == 0)
            let refused = try await post(client, "/edit/update/0.1", "csrf=\(token)&back=%2Fd%2F0.1&f.title=Loud&o.title=Volume&f.volume=abc&o.volume=60", cookie: cookie)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("aria-invalid=\"true\" aria-describedby=\"edit-field-2-error\" value=\"abc\""))
            #expect(refused.text.contains("<p class=\"field-error\" id=\"edit-field-2-error\">&#39;volume&#39; takes an integer, not &#39;abc&#39;</p>"))
            #expect(refused.text.contains("value=\"Loud\""))
            #expect(await model.revision == 0)
            let done = try await post(client, "/edit/update/0.1", "csrf=\(token)&back=%2Fd%2F0.1&f.title=Loud&o.title=Volume&f.volume=70&o.volume=60", cookie: cookie)
            #expect(done.status == .seeOther)
            #expect(done.headers[.location] == "/d/0.1")
            #expect(await model.revision == 1)
            #expect(await volume(model) == "70")
            #expect(await titles(model, under: [0]) == ["Vibrate", "Loud", "Ringtone"])
        }
    }

    @Test("the API takes JSON numbers as typed values and strings as typed text, and names a refused field")
    func api() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            #expect(try await client.edit("/api/edit/update/0.1", #"{"attributes": {"volume": "75"}}"#, cookie: cookie, token: token).status == .ok)
            #expect(await volume(model) == "75")
            #expect(try await client.edit("/api/edit/update/0.1", #"{"attributes": {"volume": 80}}"#, cookie: cookie, token: token).status == .ok)
            #expect(await volume(model) == "80")
            let refused = try await client.edit("/api/edit/update/0.1", #"{"attributes": {"volume": true}}"#, cookie: cookie, token: token)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains(#""field":"volume""#))
            let unset = try await client.edit("/api/edit/update/0.1", #"{"unset": ["volume"]}"#, cookie: cookie, token: token)
            #expect(unset.status == .ok)
            #expect(await volume(model) == nil)
        }
    }
}
