import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Safety")
struct SafetyTests {
    @Test("the server is read-only: POST and every other write get 405 with Allow: GET, HEAD")
    func readOnly() async throws {
        try await seedApp().test(.router) { client in
            for method: HTTPRequest.Method in [.post, .put, .delete, .patch] {
                for uri in ["/", "/api/level/3", "/l/3", "/edit/add/3", "/api/edit/undo"] {
                    try await client.execute(uri: uri, method: method, body: ByteBuffer(string: "x")) { response in
                        #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                        #expect(response.headers[.allow] == "GET, HEAD")
                        if method == .post { #expect(response.text.contains("read-only"), "\(uri)") }
                    }
                }
            }
            try await client.execute(uri: "/api/level", method: .post) { response in
                #expect(response.json["error"] as? String != nil)
            }
        }
    }

    @Test("request bodies are size-limited")
    func bodyLimit() async throws {
        try await seedApp().test(.router) { client in
            let big = ByteBuffer(repeating: 0x61, count: 1 << 20)
            try await client.execute(uri: "/", method: .get, body: big) { response in
                #expect(response.status == .contentTooLarge)
            }
            try await client.execute(uri: "/", method: .get, body: ByteBuffer(string: "small")) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("HEAD works and every response carries the security headers")
    func headers() async throws {
        try await seedApp().test(.router) { client in
            for uri in ["/", "/api/level", "/nowhere", "/static/app.css"] {
                try await client.execute(uri: uri, method: .head) { response in
                    let csp = response.headers[.contentSecurityPolicy] ?? ""
                    #expect(csp.contains("default-src 'self'"), "\(uri)")
                    #expect(!csp.contains("unsafe-inline"), "\(uri)")
                    #expect(response.headers[.xContentTypeOptions] == "nosniff", "\(uri)")
                }
            }
        }
    }

    @Test("images are served from the data folder and nowhere else")
    func files() async throws {
        let (app, _) = try musicApp()
        try await app.test(.router) { client in
            try await client.execute(uri: "/files/art/kind.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.body.readableBytes == 8)
            }
            for uri in ["/files/%2e%2e/secret.png", "/files/art/..%2F..%2Fsecret.png", "/files/%2Fetc%2Fpasswd.png",
                        "/files//tmp/secret.png", "/files/art/link.png"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .forbidden, "\(uri)")
                }
            }
            for uri in ["/files/data.json", "/files/art/missing.png", "/files/art", "/files/.hidden.png"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                }
            }
            // A symlink that stays inside the folder is served, typed by the image it points to.
            try await client.execute(uri: "/files/art/inside.png", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/png")
                #expect(response.body.readableBytes == 8)
            }
            // These used to end the process (a force unwrap of the content type): a symlink to a
            // non-image and a name ending with a dot; a FIFO would block the request for ever.
            for uri in ["/files/art/notes-link.png", "/files/art/x.png.", "/files/art/x.png%2E", "/files/art/pipe.png",
                        "/files/art/notes.txt"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri)")
                }
            }
            // The server is still up.
            try await client.execute(uri: "/files/art/kind.png", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/files/art/kind.png", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test("the stylesheet and script come from the app itself")
    func assets() async throws {
        try await seedApp().test(.router) { client in
            var etag = ""
            try await client.execute(uri: "/static/app.js", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/javascript; charset=utf-8")
                etag = response.headers[.eTag] ?? ""
            }
            try await client.execute(uri: "/static/app.js", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
            }
            try await client.execute(uri: "/static/evil.js", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/", method: .get) { response in
                #expect(!response.text.contains("http://"))
                #expect(!response.text.contains("https://"))
            }
        }
    }
}
