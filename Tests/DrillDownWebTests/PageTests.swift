import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Web pages")
struct PageTests {
    @Test("the root level lists Item 1–4 under the title Root, with no back button")
    func rootLevel() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/html; charset=utf-8")
                let html = response.text
                #expect(html.contains("<h1 class=\"nav-title\" id=\"title\">Root</h1>"))
                for i in 1 ... 4 { #expect(html.contains(">Item \(i)</span>")) }
                #expect(!html.contains("id=\"back\""))
                #expect(html.contains("href=\"/l/3\""))
            }
        }
    }

    @Test("a deep level is titled with the selected row and its back button shows the previous title")
    func deepLevel() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/l/3.0.0", method: .get) { response in
                #expect(response.status == .ok)
                let html = response.text
                #expect(html.contains("id=\"title\">Screen H</h1>"))
                #expect(html.contains("href=\"/l/3.0\" rel=\"up\" id=\"back\""))
                #expect(html.contains("<span class=\"back-label\">Screen G</span>"))
                #expect(html.contains("href=\"/l/3.0.0.0\""))
                #expect(html.contains("value=\"3.0.0\""))
                #expect(html.contains("data-path=\"Item 4/Screen G/Screen H\""))
                #expect(html.contains("<li>Item 4</li><li>Screen G</li><li>Screen H</li>"))
            }
        }
    }

    @Test("a leaf's level URL redirects to its detail, which shows breadcrumbs as links")
    func leafDetail() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/l/3.0.0.0.0", method: .get) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location] == "/d/3.0.0.0.0")
            }
            try await client.execute(uri: "/d/3.0.0.0.0", method: .get) { response in
                #expect(response.status == .ok)
                let html = response.text
                #expect(html.contains("id=\"detail-title\">Screen J</h2>"))
                #expect(html.contains("<span class=\"back-label\">Screen I</span>"))
                for (title, href) in [("Root", "/"), ("Item 4", "/l/3"), ("Screen G", "/l/3.0"), ("Screen I", "/l/3.0.0.0")] {
                    #expect(html.contains("<a href=\"\(href)\">\(title)</a>"))
                }
                #expect(html.contains("<a href=\"/d/3.0.0.0.0\" aria-current=\"page\">Screen J</a>"))
            }
        }
    }

    @Test("title paths redirect to the canonical TreePath URL")
    func titlePathRedirect() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/l/Item%204/Screen%20G", method: .get) { response in
                #expect(response.status == .found)
                #expect(response.headers[.location] == "/l/3.0")
            }
            try await client.execute(uri: "/go?path=Item+4%2FScreen+G%2FScreen+H%2FScreen+I%2FScreen+J", method: .get) { response in
                #expect(response.headers[.location] == "/d/3.0.0.0.0")
            }
        }
    }

    @Test("a missing path gets a friendly 404 page and a malformed one a 400")
    func badPaths() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/l/9.9", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.text.contains("the root has 6 children"))
                #expect(response.text.contains("Go to the start"))
            }
            try await client.execute(uri: "/l/3..0", method: .get) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("is not a TreePath"))
            }
            try await client.execute(uri: "/d/%FF", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/outline?open=1,x", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/l/3?offset=-1", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/nowhere", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.text.contains("There is nothing at this address."))
            }
        }
    }

    @Test("a script title is shown as text, everywhere")
    func escaping() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                #expect(response.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
                #expect(!response.text.contains("<script>alert"))
            }
            try await client.execute(uri: "/d/4", method: .get) { response in
                #expect(response.text.contains("&lt;b&gt;bold&lt;/b&gt;"))
                #expect(!response.text.contains("<script>alert"))
                #expect(!response.text.contains("<b>bold"))
            }
            try await client.execute(uri: "/search?q=%3Cscript%3E", method: .get) { response in
                #expect(response.text.contains("value=\"&lt;script&gt;\""))
                #expect(response.text.contains("1 match"))
                #expect(!response.text.contains("<script>alert"))
            }
            try await client.execute(uri: "/l/%3Cscript%3E", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(!response.text.contains("<script>"))
            }
        }
    }

    @Test("a large level renders one page with pagination links and the virtual-list hooks")
    func largeLevel() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/l/5", method: .get) { response in
                let html = response.text
                #expect(html.contains("data-total=\"1000\""))
                #expect(html.contains("data-virtual=\"1\""))
                #expect(html.components(separatedBy: "<li class=\"row").count - 1 == 100 + 1)  // and the script's row template
                #expect(html.contains("<template id=\"row-template\"><li class=\"row\"><a class=\"cell\" href=\"\">"))
                #expect(html.contains("href=\"/l/5?offset=100\" rel=\"next\""))
            }
            try await client.execute(uri: "/l/5?offset=900", method: .get) { response in
                let html = response.text
                #expect(html.contains(">Row 900</span>"))
                #expect(html.contains("Rows 901–1000 of 1000"))
                #expect(!html.contains("rel=\"next\""))
                #expect(html.contains("href=\"/l/5?offset=800\" rel=\"prev\""))
            }
        }
    }

    @Test("the outline keeps its expanded paths in the URL, with ARIA tree roles and toggle links")
    func outline() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/outline?open=1,1.0", method: .get) { response in
                let html = response.text
                #expect(html.contains("role=\"tree\""))
                #expect(html.contains("aria-level=\"3\""))
                let items = html.components(separatedBy: "role=\"treeitem\"").count - 1
                #expect(items == 8 + 1)  // and the script's row template
                #expect(html.contains("id=\"n-1\" data-path=\"1\""))
                #expect(html.contains("id=\"n-1\" data-path=\"1\"><a class=\"disclosure open\""))
                #expect(html.contains("role=\"treeitem\" aria-level=\"1\" aria-setsize=\"6\" aria-posinset=\"2\" aria-expanded=\"true\""))
                #expect(html.contains("href=\"/outline?open=1.0#n-1\""))
                #expect(html.contains("href=\"/outline?open=1,1.0,3#n-3\""))
                #expect(html.contains(">Screen C</span>"))
            }
            try await client.execute(uri: "/outline?all=1", method: .get) { response in
                let items = response.text.components(separatedBy: "role=\"treeitem\"").count - 1
                #expect(items == 500 + 1)  // and the script's row template
                #expect(response.text.contains("Rows 1–500 of 1016"))
            }
            try await client.execute(uri: "/outline?open=3,3.0,3.0.0&focus=3.0.0", method: .get) { response in
                #expect(response.text.contains("aria-level=\"3\" aria-setsize=\"1\" aria-posinset=\"1\" aria-expanded=\"true\" aria-selected=\"true\" href=\"/outline?open=3,3.0&amp;focus=3.0.0#n-3.0.0\""))
            }
        }
    }

    @Test("columns show one column per level down to the selected node, and its detail for a leaf")
    func columns() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/columns/3.0.0", method: .get) { response in
                let html = response.text
                #expect(html.components(separatedBy: "<section class=\"column\"").count - 1 == 4)
                #expect(html.contains("<li class=\"row selected\" data-path=\"3.0\">"))
            }
            try await client.execute(uri: "/columns/3.0.0.0.0", method: .get) { response in
                #expect(response.text.contains("column-detail"))
                #expect(response.text.contains("href=\"/d/3.0.0.0.0\">Open detail"))
            }
        }
    }

    @Test("search lists matches at any depth with the match marked and their parents' titles")
    func search() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/search?q=screen+j", method: .get) { response in
                let html = response.text
                #expect(html.contains("1 match"))
                #expect(html.contains("href=\"/d/3.0.0.0.0\""))
                #expect(html.contains("<span class=\"row-title\"><mark>Screen J</mark></span>"))
                #expect(html.contains("<span class=\"row-subtitle result-path\">Item 4 › Screen G › Screen H › Screen I</span>"))
                #expect(!html.contains("tree-path"))
            }
            try await client.execute(uri: "/search?q=row", method: .get) { response in
                #expect(response.text.contains("1000 matches, showing the first 100"))
                #expect(response.text.contains("href=\"/search?q=row&amp;offset=100\">Next</a>"))
                #expect(!response.text.contains(">Previous</a>"))
            }
        }
    }

    @Test("search pages on with ?offset=, returns to ?from= and narrows to ?in=")
    func searchPagesAndOrigin() async throws {
        try await seedApp().test(.router) { client in
            try await client.execute(uri: "/search?q=row&offset=900&from=%2Fl%2F3", method: .get) { response in
                let html = response.text
                #expect(html.contains("1000 matches, showing 901–1000"))
                #expect(html.contains("href=\"/search?q=row&amp;from=/l/3&amp;offset=800\">Previous</a>"))
                #expect(!html.contains(">Next</a>"))
                // The back button returns to the page the search started on, with its title.
                #expect(html.contains("<a class=\"back\" href=\"/l/3\" rel=\"up\" id=\"back\">"))
                #expect(html.contains("<span class=\"back-label\">Item 4</span>"))
                #expect(html.contains("name=\"in\" value=\"3\" id=\"search-in\"> Only in Item 4"))
            }
            try await client.execute(uri: "/search?q=screen&in=3&from=%2Fl%2F3", method: .get) { response in
                #expect(response.text.contains("4 matches"))
                #expect(response.text.contains("id=\"search-in\" checked"))
            }
            // Another site, or a page that is not one of the app's, is not followed.
            for from in ["https%3A%2F%2Fexample.com%2F", "%2F%2Fexample.com", "%2Fl%2F99"] {
                try await client.execute(uri: "/search?q=row&from=\(from)", method: .get) { response in
                    #expect(response.text.contains("<a class=\"back\" href=\"/\" rel=\"up\" id=\"back\">"))
                }
            }
            try await client.execute(uri: "/search?q=row&offset=x", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            // Every page's search field says where it is.
            try await client.execute(uri: "/l/3.0", method: .get) { response in
                #expect(response.text.contains("<input type=\"hidden\" name=\"from\" value=\"/l/3.0\">"))
                #expect(response.text.contains("data-scope=\"3.0\" data-scope-title=\"Screen G\""))
            }
        }
    }

    @Test("templates: images from the data folder, m:ss lengths, select detail, disabled actions, detail buttons")
    func templates() async throws {
        let (app, _) = try musicApp()
        try await app.test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let html = response.text
                #expect(html.contains("<a class=\"info\" href=\"/d/0\" aria-label=\"Details of Miles Davis\">"))
                #expect(html.contains("<li class=\"row disabled\" id=\"n-1\""))
                #expect(html.contains("▶ play"))
            }
            try await client.execute(uri: "/l/0", method: .get) { response in
                #expect(response.text.contains("<img class=\"thumb\" src=\"/files/art/kind.png\""))
                #expect(!response.text.contains("secret.png"))
            }
            try await client.execute(uri: "/l/0.0", method: .get) { response in
                #expect(response.text.contains("href=\"/d/0.0.0\""))
                #expect(response.text.contains("9:22"))
            }
            try await client.execute(uri: "/d/0.0.0", method: .get) { response in
                #expect(response.text.contains("<dd class=\"field-value\">9:22</dd>"))
            }
        }
    }
}
