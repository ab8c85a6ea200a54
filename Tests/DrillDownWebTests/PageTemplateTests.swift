import DrillDownCore
import Foundation
import Hummingbird
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import DrillDownWeb

/// The compiled templates (``PageTemplates``) must render every screen exactly as swift-mustache does.
@Suite("Page templates")
struct PageTemplateTests {
    /// `site` with its pages rendered by swift-mustache itself; everything else (data, sessions) shared.
    static func reference(_ site: Site) -> Site {
        var reference = site
        let a = site.assets
        reference.assets = Assets(templates: a.templates, compiled: nil, files: a.files, version: a.version, apiDocument: a.apiDocument)
        return reference
    }

    /// Requests every URI of `uris` from both sites with the same headers and compares the bodies.
    static func compare(_ site: Site, _ uris: [String], headers: HTTPFields = [:]) async throws {
        #expect(site.assets.compiled != nil, "a template uses a construct PageTemplates does not compile")
        let hosts = HostPolicy(listenHost: "127.0.0.1")
        let fast = Application(router: site.makeRouter(hosts: hosts))
        let slow = Application(router: Self.reference(site).makeRouter(hosts: hosts))
        let pages = try await fast.test(.router) { client in
            var pages: [String: (HTTPResponse.Status, String)] = [:]
            for uri in uris {
                pages[uri] = try await client.execute(uri: uri, method: .get, headers: headers) { ($0.status, String(buffer: $0.body)) }
            }
            return pages
        }
        try await slow.test(.router) { client in
            for uri in uris {
                let (status, body) = try await client.execute(uri: uri, method: .get, headers: headers) { ($0.status, String(buffer: $0.body)) }
                #expect(pages[uri]?.0 == status, "\(uri)")
                #expect(pages[uri]?.1 == body, "\(uri) differs")
                #expect(body.hasPrefix("<!doctype html>") || status == .found, "\(uri)")
            }
        }
    }

    @Test("read-only screens: levels (whole, paged, sectioned), details, outline, columns, search, errors")
    func readOnly() async throws {
        let presenter = Presenter(source: DocumentSource(tree: seed000.tree))
        let server = try WebServer(presenter: presenter, dataFolder: nil)
        try await Self.compare(server.site, [
            "/", "/l/0", "/l/3.0", "/l/3.0.0.0", "/l/5", "/l/5?offset=100", "/l/5?offset=950", "/d/0.0", "/d/4",
            "/outline", "/outline?open=0,1,1.0", "/outline?all=1", "/columns", "/columns/3.0.0", "/search", "/search?q=screen",
            "/search?q=zzz", "/search?q=%3Cscript", "/search?q=row&values=1", "/nothing", "/l/99", "/l/3..0",
        ])
        let musicPresenter = Presenter(source: DocumentSource(tree: music.tree), schema: try Schema(tree: musicSchema.tree))
        let musicServer = try WebServer(presenter: musicPresenter, dataFolder: nil)
        try await Self.compare(musicServer.site, ["/", "/l/0", "/l/0.0", "/d/0.0.0", "/d/1", "/columns/0.0", "/outline?all=1", "/search?q=blue"])
    }

    @Test("editable screens: edit mode, the add, delete and Move… pages, with the session's token")
    func editable() async throws {
        let (_, model) = try await editableApp()
        let schema = Schema()
        let server = try await WebServer(model: model, schema: schema, dataFolder: nil)
        let cookie = "dd_session=0123456789abcdef0123456789abcdef"
        try await Self.compare(server.site, [
            "/", "/?edit=1", "/l/0", "/l/0?edit=1", "/d/0.2", "/add", "/add/0", "/delete/0.1", "/outline", "/columns/0",
            "/search?q=o", "/move/0.1", "/move/0.1?at=Nowhere", "/move?paths=0.1,0.2&q=o",
        ], headers: [.cookie: cookie])
    }
}
