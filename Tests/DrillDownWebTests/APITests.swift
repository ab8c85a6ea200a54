import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("JSON API")
struct APITests {
    @Test("a level page: title, back label, path, total and rows")
    func level() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/api/level/3.0?offset=0&limit=100", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
                let json = response.json
                #expect(json["title"] as? String == "Screen G")
                #expect(json["backLabel"] as? String == "Item 4")
                #expect(json["path"] as? String == "3.0")
                #expect(json["titlePath"] as? String == "Item 4/Screen G")
                #expect(json["total"] as? Int == 1)
                let rows = json["rows"] as? [[String: Any]] ?? []
                #expect(rows.count == 1)
                #expect(rows.first?["title"] as? String == "Screen H")
                #expect(rows.first?["path"] as? String == "3.0.0")
                #expect(rows.first?["href"] as? String == "/l/3.0.0")
                #expect(rows.first?["drills"] as? Bool == true)
            }
            try await client.execute(uri: "/api/level", method: .get) { response in
                #expect(response.json["title"] as? String == "Root")
                #expect(response.json["backLabel"] == nil)
                #expect(response.json["total"] as? Int == 6)
            }
        }
    }

    @Test("offset and limit page through a large level, capped at 1000 rows")
    func paging() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/api/level/5?offset=950&limit=100", method: .get) { response in
                let rows = response.json["rows"] as? [[String: Any]] ?? []
                #expect(rows.count == 50)
                #expect(rows.first?["title"] as? String == "Row 950")
                #expect(rows.first?["href"] as? String == "/d/5.950")
            }
            try await client.execute(uri: "/api/level/5?limit=100000", method: .get) { response in
                #expect(response.json["limit"] as? Int == 1000)
            }
        }
    }

    @Test("title paths work in the API")
    func titlePaths() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/api/level/Item%204/Screen%20G", method: .get) { response in
                #expect(response.json["path"] as? String == "3.0")
            }
            try await client.execute(uri: "/api/node/item%204/screen%20g/Screen%20H", method: .get) { response in
                #expect(response.json["path"] as? String == "3.0.0")
            }
        }
    }

    @Test("a node: detail fields, value and breadcrumbs")
    func node() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/api/node/3.0.0.0.0", method: .get) { response in
                let json = response.json
                #expect(json["title"] as? String == "Screen J")
                #expect(json["backLabel"] as? String == "Screen I")
                #expect(json["drills"] as? Bool == false)
                let crumbs = (json["breadcrumbs"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
                #expect(crumbs == ["Root", "Item 4", "Screen G", "Screen H", "Screen I", "Screen J"])
            }
            try await client.execute(uri: "/api/node/4", method: .get) { response in
                let fields = response.json["fields"] as? [[String: Any]] ?? []
                #expect(fields.first?["key"] as? String == "note")
                #expect(fields.first?["value"] as? String == "<b>bold</b>")
                #expect(response.json["title"] as? String == "<script>alert(1)</script>")
            }
        }
    }

    @Test("search finds nodes at any depth with their paths")
    func search() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/api/search?q=screen&limit=3", method: .get) { response in
                let json = response.json
                #expect(json["total"] as? Int == 10)
                let hits = json["hits"] as? [[String: Any]] ?? []
                #expect(hits.count == 3)
                #expect(hits.first?["titlePath"] as? String == "Item 1/Screen A")
                #expect(hits.first?["href"] as? String == "/d/0.0")
                #expect(hits.first?["parents"] as? [String] == ["Item 1"])
                #expect(json["offset"] as? Int == 0)
            }
            try await client.execute(uri: "/api/search?q=screen&limit=3&offset=9", method: .get) { response in
                let json = response.json
                #expect(json["total"] as? Int == 10 && json["offset"] as? Int == 9)
                let hits = json["hits"] as? [[String: Any]] ?? []
                #expect(hits.map { $0["path"] as? String } == ["3.0.0.0.0"])
                #expect(hits.first?["parents"] as? [String] == ["Item 4", "Screen G", "Screen H", "Screen I"])
            }
            try await client.execute(uri: "/api/search?q=screen&in=3.0.0", method: .get) { response in
                let hits = response.json["hits"] as? [[String: Any]] ?? []
                #expect(hits.map { $0["title"] as? String } == ["Screen I", "Screen J"])
            }
            try await client.execute(uri: "/api/search?q=screen&in=9", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/search", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.json["error"] as? String != nil)
            }
        }
    }

    @Test("the outline API pages through visible rows with depth and expanded state")
    func outline() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/api/outline?open=1,1.0", method: .get) { response in
                let json = response.json
                #expect(json["total"] as? Int == 8)
                let rows = json["rows"] as? [[String: Any]] ?? []
                #expect(rows.compactMap { $0["path"] as? String } == ["0", "1", "1.0", "1.0.0", "2", "3", "4", "5"])
                #expect(rows.compactMap { $0["depth"] as? Int } == [1, 1, 2, 3, 1, 1, 1, 1])
                #expect(rows[1]["expanded"] as? Bool == true)
            }
            try await client.execute(uri: "/api/outline?all=1&closed=5&offset=2&limit=3", method: .get) { response in
                #expect(response.json["total"] as? Int == 16)
                let rows = response.json["rows"] as? [[String: Any]] ?? []
                #expect(rows.compactMap { $0["path"] as? String } == ["1", "1.0", "1.0.0"])
            }
        }
    }

    @Test("errors are JSON with the right status")
    func errors() async throws {
        try await seedApp().test(.router) { client in
            for (uri, status) in [
                ("/api/node/9", HTTPResponse.Status.notFound), ("/api/level/3.7", .notFound), ("/api/level/1..2", .badRequest),
                ("/api/level/3?offset=abc", .badRequest), ("/api/node/Item%209", .notFound), ("/api/nothing", .notFound),
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == status, "\(uri)")
                    #expect(response.headers[.contentType] == "application/json; charset=utf-8", "\(uri)")
                    #expect((response.json["error"] as? String)?.isEmpty == false, "\(uri)")
                }
            }
        }
    }
}
