import DrillDownCore
import DrillDownWeb
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing

/// Moving rows under another node (`to=PARENT`), the outline's and columns' Edit mode, the
/// Move… and Rename pages, and the outline API's set sizes and focus row.
@Suite("Moving and editing in every mode")
struct MoveTests {
    @Test("to= moves a node under another parent at an index, by TreePath or title path, and answers its new path")
    func moveToParent() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            var response = try await client.edit("/api/edit/move/2", #"{"to":"0","index":0}"#, cookie: cookie, token: token)
            #expect(response.status == .ok)
            #expect(response.json["paths"] as? [String] == ["0.0"])
            #expect(await titles(model, under: [0]) == ["Privacy", "Vibrate", "Volume", "Ringtone"])
            response = try await client.edit("/api/edit/move/0.0", #"{"to":""}"#, cookie: cookie, token: token)
            #expect(response.json["paths"] as? [String] == ["2"])
            #expect(await titles(model, under: .root) == ["Sounds", "Display", "Privacy"])
            response = try await client.edit("/api/edit/move/2", #"{"to":"Display"}"#, cookie: cookie, token: token)
            #expect(response.json["paths"] as? [String] == ["1.0"])
            #expect(await titles(model, under: [1]) == ["Privacy"])
            // The same place is no change.
            response = try await client.edit("/api/edit/move/1.0", #"{"to":"1","index":0}"#, cookie: cookie, token: token)
            #expect(response.json["changed"] as? Bool == false)
        }
    }

    @Test("moving a node into its own subtree is refused with the core's message, as JSON for scripts posting forms")
    func ownSubtree() async throws {
        let (app, model) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, token) = try await session(client)
            let before = await model.revision
            let response = try await client.edit("/api/edit/move/0", #"{"to":"Sounds/Volume"}"#, cookie: cookie, token: token)
            #expect(response.status == .badRequest)
            #expect((response.json["error"] as? String ?? "").contains("into itself or its own subtree"))
            // app.js posts the form encoding to /edit/ asking only for JSON: the refusal is JSON too.
            let form = try await client.execute(
                uri: "/edit/move/0", method: .post,
                headers: [.contentType: "application/x-www-form-urlencoded", .cookie: cookie, .accept: "application/json",
                          HTTPField.Name("X-CSRF-Token")!: token],
                body: ByteBuffer(string: "to=0.1")) { $0 }
            #expect(form.status == .badRequest)
            #expect(form.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect((form.json["error"] as? String ?? "").contains("own subtree"))
            #expect(try await client.edit("/api/edit/move/1", #"{"to":"0","index":"x"}"#, cookie: cookie, token: token).status == .badRequest)
            #expect(try await client.edit("/api/edit/move/1", #"{"to":"9.9"}"#, cookie: cookie, token: token).status == .notFound)
            #expect(await model.revision == before)
        }
    }

    @Test("the outline in Edit mode: rows select, the edit tools rename, add to, move and delete the selection")
    func outlineEditMode() async throws {
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, _) = try await session(client)
            try await client.execute(uri: "/outline?open=0&edit=1&focus=0.2", method: .get, headers: [.cookie: cookie]) { response in
                let html = response.text
                #expect(html.contains("id=\"edit-tools\""))
                #expect(html.contains("class=\"list outline editing\""))
                #expect(html.contains("href=\"/rename/0.2?back=/outline%3Fopen%3D0%26edit%3D1%26focus%3D0.2\""))
                #expect(html.contains("href=\"/move/0.2?back=/outline%3Fopen%3D0%26edit%3D1\""))
                #expect(html.contains("data-action=\"/edit/delete/0.2\""))
                #expect(html.contains("href=\"/add/0.2?back="))
                // A row's cell selects it and keeps Edit mode; a drag handle ends each row.
                #expect(html.contains("href=\"/outline?open=0&amp;edit=1&amp;focus=0.1#n-0.1\""))
                #expect(html.contains("class=\"drag-handle\" aria-hidden=\"true\""))
                #expect(html.contains("aria-setsize=\"3\" aria-posinset=\"3\" aria-selected=\"true\""))
                #expect(html.contains("id=\"edit-button\" href=\"/outline?open=0&amp;focus=0.2\">Done"))
            }
            try await client.execute(uri: "/outline?edit=1", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains("Select a row to rename it"))
                #expect(!response.text.contains("id=\"rename-link\""))
            }
        }
        // A read-only server has no Edit mode.
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/outline?edit=1", method: .get) { response in
                #expect(!response.text.contains("edit-tools"))
                #expect(!response.text.contains("drag-handle"))
            }
        }
    }

    @Test("columns in Edit mode keep it in their links and act on the selected node")
    func columnsEditMode() async throws {
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, _) = try await session(client)
            try await client.execute(uri: "/columns/0.1?edit=1", method: .get, headers: [.cookie: cookie]) { response in
                let html = response.text
                #expect(html.contains("id=\"edit-selected-title\">Volume<"))
                #expect(html.contains("href=\"/columns/0.2?edit=1\""))
                #expect(html.contains("href=\"/delete/0.1?back=/columns/0%3Fedit%3D1\""))
            }
        }
    }

    @Test("the Move… picker and the Rename page are forms that post to the edit routes")
    func formPages() async throws {
        let (app, _) = try await editableApp()
        try await app.test(.router) { client in
            let (cookie, _) = try await session(client)
            try await client.execute(uri: "/move/0.2?back=/l/0", method: .get, headers: [.cookie: cookie]) { response in
                let html = response.text
                #expect(html.contains("id=\"move-here-form\" method=\"post\" action=\"/edit/move/0.2\""))
                #expect(html.contains("<input type=\"hidden\" name=\"to\" value=\"0\">"))
                #expect(html.contains("name=\"back\" value=\"/l/0\""))
            }
            try await client.execute(uri: "/rename/0.2", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains("id=\"rename-title\" value=\"Ringtone\""))
            }
            try await client.execute(uri: "/move/9.9", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/l/0?edit=1", method: .get, headers: [.cookie: cookie]) { response in
                #expect(response.text.contains("class=\"move-link\" href=\"/move/0.1?back=/l/0%3Fedit%3D1\""))
            }
        }
    }

    @Test("outline rows carry their set size, and focus= answers a node's row")
    func outlineSetSizeAndFocus() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/api/outline?open=1&focus=1.0", method: .get) { response in
                let json = response.json
                #expect(json["focusRow"] as? Int == 2)
                let rows = json["rows"] as? [[String: Any]] ?? []
                #expect(rows.first?["setSize"] as? Int == 6)
                #expect(rows[2]["setSize"] as? Int == 1)
            }
            try await client.execute(uri: "/api/outline?focus=1.0", method: .get) { response in
                #expect(response.json["focusRow"] == nil)
            }
            try await client.execute(uri: "/outline?open=1", method: .get) { response in
                #expect(response.text.contains("aria-level=\"2\" aria-setsize=\"1\" aria-posinset=\"1\""))
            }
        }
    }
}
