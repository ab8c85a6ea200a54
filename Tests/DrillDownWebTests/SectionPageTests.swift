import DrillDownCore
import DrillDownWeb
import Hummingbird
import HummingbirdTesting
import Testing

/// Sections on level pages (issue 12 item 1), as the HTML arrives without script.
@Suite("Web pages: sections and the jump bar")
struct SectionPageTests {
    /// A root of `count` names sorted by initial (`A 0`, …), sectioned by initial with an index.
    func app(count: Int) throws -> some ApplicationProtocol {
        let names = (0 ..< count).map { i in Doc.object([("name", .string("\(Character(UnicodeScalar(65 + i * 26 / count)!)) \(i)"))]) }
        let doc: Doc = .object([("Rows", .array(names))])
        let schema: Doc = .object([
            ("root", .string("name")),
            ("kinds", .object([("name", .object([("title", .string("{name}")), ("section", .string("initial")), ("index", .bool(true))]))])),
        ])
        let presenter = Presenter(source: DocumentSource(tree: doc.tree), schema: try Schema(tree: schema.tree))
        return Application(router: try WebServer(presenter: presenter, dataFolder: nil).makeRouter())
    }

    @Test("a whole level gets a header before each section's first row and a jump bar of anchors")
    func wholeLevel() async throws {
        try await app(count: 52).test(.router) { client in
            try await client.execute(uri: "/", method: .get) { response in
                let html = response.text
                #expect(html.components(separatedBy: "class=\"section-header\"").count - 1 == 26)
                #expect(html.contains("<li class=\"section-header\" id=\"section-12\" data-start=\"24\"><h2>M</h2></li>\n<li class=\"row\" id=\"n-24\""))
                #expect(html.contains("<li><a href=\"#section-12\" data-start=\"24\">M</a></li>"))
                // Headers are not rows: the rows keep their TreePaths.
                #expect(html.contains("id=\"n-51\" data-path=\"51\""))
            }
        }
    }

    @Test("a paged level links the jump bar to each section's first row and names the page's section")
    func pagedLevel() async throws {
        try await app(count: 2600).test(.router) { client in
            try await client.execute(uri: "/?offset=1250", method: .get) { response in
                let html = response.text
                #expect(html.contains("<li><a href=\"/?offset=1200\" data-start=\"1200\">M</a></li>"))
                #expect(html.contains("id=\"section-current\">M</h2>"))
                #expect(!html.contains("class=\"section-header\" id=\"section-"))
                #expect(html.contains("data-sections=\"[{&quot;start&quot;:0,&quot;title&quot;:&quot;A&quot;}"))
            }
        }
    }
}
