import Foundation
import Hummingbird
import Mustache

/// The web app's bundled resources: Mustache templates and the static stylesheet and script,
/// read once at start and served from memory.
struct Assets: Sendable {
    /// A static file held in memory.
    struct File: Sendable {
        /// The bytes.
        var body: ByteBuffer
        /// Its content type.
        var contentType: String
        /// A strong validator derived from the bytes.
        var etag: String
    }

    /// Why the bundled resources could not be used.
    struct LoadError: Error, CustomStringConvertible {
        var description: String
    }

    /// The templates, by file name without `.mustache`.
    let templates: MustacheLibrary
    /// The same templates compiled for speed (see ``PageTemplates``); `nil` when one uses a
    /// construct that renderer does not handle, and swift-mustache renders every page.
    let compiled: PageTemplates?
    /// `app.css`, `app.js`, `feedback.js`, `search.js`, `move.js` (the Move… picker's dialog), by name.
    let files: [String: File]
    /// A short hash of the static files, appended to their URLs so browsers cache them safely.
    let version: String
    /// The OpenAPI document of the JSON API (`api/openapi.json`), served at `/api/openapi.json`.
    let apiDocument: File

    /// Reads the resources from the module bundle.
    static func load() throws -> Assets {
        let base = resourcesFolder()
        let library: MustacheLibrary
        let sources: [String: String]
        do {
            (library, sources) = try MustacheLibrary.loadSync(directory: base.appendingPathComponent("templates").path)
        } catch {
            throw LoadError(description: "cannot read the web templates: \(error)")
        }
        var files: [String: File] = [:]
        var combined: UInt64 = 0xcbf2_9ce4_8422_2325
        for (name, type) in [("app.css", "text/css; charset=utf-8"), ("app.js", "text/javascript; charset=utf-8"), ("feedback.js", "text/javascript; charset=utf-8"), ("search.js", "text/javascript; charset=utf-8"), ("move.js", "text/javascript; charset=utf-8")] {
            let url = base.appendingPathComponent("static").appendingPathComponent(name)
            guard let data = try? Data(contentsOf: url) else { throw LoadError(description: "missing web asset \(url.path)") }
            let hash = fnv1a(data)
            combined = (combined ^ hash) &* 0x100_0000_01b3
            files[name] = File(body: ByteBuffer(bytes: data), contentType: type, etag: "\"\(String(hash, radix: 36))\"")
        }
        let apiURL = base.appendingPathComponent("api").appendingPathComponent("openapi.json")
        guard let api = try? Data(contentsOf: apiURL) else { throw LoadError(description: "missing API document \(apiURL.path)") }
        let apiDocument = File(body: ByteBuffer(bytes: api), contentType: "application/json; charset=utf-8", etag: "\"\(String(fnv1a(api), radix: 36))\"")
        return Assets(
            templates: library, compiled: try? PageTemplates(sources: sources), files: files,
            version: String(combined % 0xffff_ffff, radix: 36), apiDocument: apiDocument)
    }

    /// The bundle's `Resources` folder (Foundation on Linux may already report it as `resourceURL`).
    static func resourcesFolder() -> URL {
        let candidates = [Bundle.module.resourceURL, Bundle.module.resourceURL?.appendingPathComponent("Resources"),
                          Bundle.module.bundleURL.appendingPathComponent("Resources")].compactMap { $0 }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("templates").path) }
            ?? Bundle.module.bundleURL.appendingPathComponent("Resources")
    }

    /// Renders the template `name` with `context`; HTML-escapes every `{{value}}`.
    func render(_ name: String, _ context: TemplateContext) -> String {
        compiled?.render(name, context) ?? renderWithMustache(name, context)
    }

    /// The page `name` rendered as UTF-8 bytes, with room for `capacity` of them.
    func renderHTML(_ name: String, _ context: TemplateContext, capacity: Int = 8192) -> HTML {
        compiled?.renderHTML(name, context, capacity: capacity) ?? HTML(renderWithMustache(name, context))
    }

    /// Renders with swift-mustache itself: the reference ``PageTemplates`` is checked against.
    func renderWithMustache(_ name: String, _ context: TemplateContext) -> String {
        templates.render(context.dictionary, withTemplate: name) ?? "template \(name) missing"
    }

    static func fnv1a(_ data: Data) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in data { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }
}

extension MustacheLibrary {
    /// Loads every `*.mustache` file of `directory`, synchronously (at start, before serving);
    /// returns the library and each template's text by name.
    static func loadSync(directory: String) throws -> (MustacheLibrary, [String: String]) {
        var library = MustacheLibrary()
        var sources: [String: String] = [:]
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".mustache") }
        guard !names.isEmpty else { throw Assets.LoadError(description: "no templates in \(directory)") }
        for file in names {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            let name = String(file.dropLast(".mustache".count))
            try library.register(text, named: name)
            sources[name] = text
        }
        return (library, sources)
    }
}
