import DrillDownCore
import DrillDownWeb
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing

@Suite("Feedback: undo and redo say what and where; the page shows the history")
struct FeedbackTests {
    @Test("the JSON answers carry the history; undo and redo say what they did and where")
    func answers() async throws {
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            var response = try await client.edit("/api/edit/rename/0.2", #"{"title":"Chime"}"#, cookie: cookie, token: token)
            #expect(history(response) == "undo Rename of Ringtone to Chime, redo -")
            response = try await client.edit("/api/edit/undo", cookie: cookie, token: token)
            let step = response.json["step"] as? [String: AnyHashable]
            #expect(step == ["op": "undo", "summary": "Rename of Ringtone to Chime", "level": "0", "place": "Sounds", "href": "/l/0", "row": "0.2"])
            #expect(history(response) == "no undo, redo Rename of Ringtone to Chime")
            response = try await client.edit("/api/edit/redo", cookie: cookie, token: token)
            #expect((response.json["step"] as? [String: Any])?["op"] as? String == "redo")
            response = try await client.edit("/api/edit/redo", cookie: cookie, token: token)
            #expect(response.json["step"] == nil && response.json["changed"] as? Bool == false)
        }
    }

    /// The answer's `history`, in words: "undo X, redo -", or "no undo, …" when Undo cannot act.
    func history(_ response: TestResponse) -> String {
        let h = response.json["history"] as? [String: Any] ?? [:]
        func part(_ name: String, _ can: String) -> String {
            h[can] as? Bool == true ? "\(name) \(h[name] as? String ?? "?")" : (h[name] == nil ? (name == "undo" ? "no undo" : "redo -") : "?")
        }
        return part("undo", "canUndo") + ", " + part("redo", "canRedo")
    }

    @Test("without script: Undo is disabled and labelled; the undo form's redirect brings a notice shown once, escaped")
    func forms() async throws {
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            var page = try await client.execute(uri: "/l/0", method: .get, headers: [.cookie: cookie]) { $0.text }
            #expect(page.contains(#"id="undo" disabled title="Nothing to undo""#))
            _ = try await client.edit("/api/edit/rename/0.2", #"{"title":"<i>Chime</i>"}"#, cookie: cookie, token: token)
            page = try await client.execute(uri: "/l/0", method: .get, headers: [.cookie: cookie]) { $0.text }
            #expect(page.contains(#"id="undo" title="Undo Rename of Ringtone to &lt;i&gt;Chime&lt;/i&gt;""#))
            let redirect = try await client.execute(
                uri: "/edit/undo", method: .post, headers: [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(token)&back=/")) { $0 }
            #expect(redirect.status == .seeOther)
            let notice = try #require(redirect.headers[values: .setCookie].first { $0.hasPrefix("dd_notice=") })
            let pair = String(notice.split(separator: ";")[0])
            let shown = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie + "; " + pair]) { $0 }
            #expect(shown.text.contains(#"<span id="notice-sentence">Undid Rename of Ringtone to &lt;i&gt;Chime&lt;/i&gt;</span> in Sounds — <a href="/l/0" id="notice-show">Show</a>"#))
            #expect(shown.headers[values: .setCookie].contains { $0.hasPrefix("dd_notice=;") })
            // The level page cache never keeps a page with a notice.
            page = try await client.execute(uri: "/", method: .get, headers: [.cookie: cookie]) { $0.text }
            #expect(page.contains("id=\"notice-region\"") && !page.contains("notice-sentence"))
        }
    }
}
