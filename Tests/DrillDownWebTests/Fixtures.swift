import DrillDownCore
import DrillDownWeb
import Foundation
import Hummingbird
import HummingbirdTesting

/// A document literal for building trees in tests.
typealias Doc = TreeLiteral

/// A row dictionary of the outline convention.
func row(_ title: String, _ children: [Doc] = [], _ extra: [(String, Doc)] = []) -> Doc { .row(title, children, extra) }

/// `Examples/Data.plist`, plus a row whose title is a script and a level of 1000 rows.
let seed000: Doc = .object([
    ("Rows", .array([
        row("Item 1", [row("Screen A")]),
        row("Item 2", [row("Screen B", [row("Screen C")])]),
        row("Item 3", [row("Screen D", [row("Screen E", [row("Screen F")])])]),
        row("Item 4", [row("Screen G", [row("Screen H", [row("Screen I", [row("Screen J")])])])]),
        row("<script>alert(1)</script>", [], [("note", .string("<b>bold</b>"))]),
        row("Big", (0 ..< 1000).map { row("Row \($0)") }),
    ]))
])

/// A small music library with a schema: images, `m:ss` lengths, select detail, an action and a detail button.
let music: Doc = .object([
    ("Title", .string("Music")),
    ("Rows", .array([
        .object([
            ("name", .string("Miles Davis")), ("genre", .string("Jazz")),
            ("albums", .array([
                .object([
                    ("title", .string("Kind of Blue")), ("year", .int(1959)), ("art", .string("art/kind.png")),
                    ("songs", .array([
                        .object([("name", .string("So What")), ("length", .int(562))]),
                        .object([("name", .string("Blue in Green")), ("length", .int(337))]),
                    ])),
                ]),
                .object([("title", .string("Escape")), ("year", .int(1)), ("art", .string("../secret.png"))]),
            ])),
        ]),
        .object([("name", .string("Radio")), ("kind", .string("station"))]),
    ])),
])

let musicSchema: Doc = .object([
    ("title", .string("Music")),
    ("root", .string("artist")),
    ("kinds", .object([
        ("artist", .object([("title", .string("{name}")), ("subtitle", .string("{genre}")), ("children", .string("albums")),
                            ("childKind", .string("album")), ("accessory", .string("detail"))])),
        ("album", .object([("title", .string("{title}")), ("subtitle", .string("{year}")), ("image", .string("{art}")),
                           ("children", .string("songs")), ("childKind", .string("song"))])),
        ("song", .object([("title", .string("{name}")), ("subtitle", .string("{length|duration}")), ("select", .string("detail"))])),
        ("station", .object([("title", .string("{name}")), ("select", .string("action:play"))])),
    ])),
])

/// The `Examples/Data.plist` app (no data folder).
func seedApp() throws -> some ApplicationProtocol {
    let presenter = Presenter(source: DocumentSource(tree: seed000.tree))
    return Application(router: try WebServer(presenter: presenter, dataFolder: nil).makeRouter())
}

/// The music app serving files from a temporary folder with `art/kind.png`, a `secret.png`
/// beside the folder, a symlink out of it (`art/link.png`), one that stays inside
/// (`art/inside.png -> kind.png`), one to a non-image (`art/notes-link.png -> notes.txt`), a file
/// named `art/x.png.`, a FIFO `art/pipe.png` and a non-image file.
func musicApp() throws -> (app: some ApplicationProtocol, folder: URL) {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("drilldown-web-\(UUID().uuidString)")
    let folder = base.appendingPathComponent("data")
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("art"), withIntermediateDirectories: true)
    let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    try Data(png).write(to: folder.appendingPathComponent("art/kind.png"))
    try Data(png).write(to: base.appendingPathComponent("secret.png"))
    try Data("{}".utf8).write(to: folder.appendingPathComponent("data.json"))
    try FileManager.default.createSymbolicLink(
        at: folder.appendingPathComponent("art/link.png"), withDestinationURL: base.appendingPathComponent("secret.png"))
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("art/inside.png").path, withDestinationPath: "kind.png")
    try Data("notes".utf8).write(to: folder.appendingPathComponent("art/notes.txt"))
    try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("art/notes-link.png").path, withDestinationPath: "notes.txt")
    try Data(png).write(to: folder.appendingPathComponent("art/x.png."))
    _ = mkfifo(folder.appendingPathComponent("art/pipe.png").path, 0o644)
    let keys = OutlineKeys.standard.preferring(title: ["name"], children: ["albums", "songs"])
    let schema = try Schema(tree: musicSchema.tree)
    let source = DocumentSource(tree: music.tree, keys: keys)
    let presenter = Presenter(source: source, schema: schema)
    return (Application(router: try WebServer(presenter: presenter, dataFolder: folder).makeRouter()), folder)
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }

    /// The body as a JSON object.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }
}
