import ArgumentParser
import DrillDownCore
import DrillDownFormats
import DrillDownWeb
import Foundation

/// `drilldown serve [FILE]`: the web app; with no FILE, the bundled music library.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a data set as drill-down table views in the browser (read-only).",
        discussion: """
            Prints the URL once the server listens. Every screen has its own URL built from the TreePath
            (/l/3.0, /d/3.0.0.0.0, /outline?open=1,1.0, /columns/3.0, /search?q=screen), and a JSON API
            serves the same data (/api/level/PATH, /api/node/PATH, /api/search?q=, /api/outline).
            """)

    @Argument(help: "A property list (XML, binary or OpenStep), JSON or YAML file; the bundled music library when omitted.",
              completion: .file())
    var file: String?

    @Option(name: .long, help: "A presentation schema (YAML or JSON): per-kind titles, subtitles, images, controls.")
    var schema: String?

    @Option(name: .long, help: "The key that holds a row's title (outline convention; default Title, then name).")
    var titleKey: String?

    @Option(name: .long, help: "The key that holds a row's children (outline convention; default Children, then items).")
    var childrenKey: String?

    @Flag(name: .long, help: "Browse the document generically, like a JSON viewer, even if it follows the outline convention.")
    var generic = false

    @Option(name: .long, help: "The input format when content and extension are not enough: json, yaml, plist, bplist, openstep.")
    var format: DocumentFormat?

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    func validate() throws {
        guard (0 ... 65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
    }

    func run() async throws {
        let dataFile = file ?? BundledExample.musicLibrary.path
        let schemaFile = schema ?? (file == nil ? BundledExample.musicSchema.path : nil)
        let loaded = try LoadedData.load(
            file: dataFile, schemaFile: schemaFile, titleKey: titleKey, childrenKey: childrenKey, generic: generic, format: format)
        let server: WebServer
        do {
            server = try WebServer(presenter: loaded.presenter, dataFolder: loaded.folder)
        } catch {
            throw BadInput("cannot start the web app: \(error)")
        }
        try await server.run(host: host, port: port)
    }
}
