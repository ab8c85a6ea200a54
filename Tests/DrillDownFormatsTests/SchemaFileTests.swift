import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

@Suite("Schema files")
struct SchemaFileTests {
    /// The error reading `text` as a schema named `file` gives, as printed.
    func schemaError(_ text: String, file: String) -> String? {
        do {
            _ = try SchemaFile(bytes: Array(text.utf8), file: file)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("a misspelt key is reported at its line and column in YAML")
    func misspeltKeyInYAML() {
        let yaml = """
            title: Music
            kinds:
              artist:
                title: "{name}"
                children: albums
                childKnd: album
              album: { titel: "{title}" }
            """
        #expect(schemaError(yaml, file: "bad.yaml")
            == "bad.yaml:6:5: schema field 'kinds.artist': unknown key 'childKnd' (did you mean 'childKind'?)")
        #expect(schemaError(yaml.replacingOccurrences(of: "childKnd", with: "childKind"), file: "bad.yaml")
            == "bad.yaml:7:12: schema field 'kinds.album': unknown key 'titel' (did you mean 'title'?)")
    }

    @Test("positions are found in JSON schemas, inside lists, and for bad values")
    func positionsInJSONAndLists() {
        let json = """
            {
              "kinds": {
                "volume": {
                  "controls": [
                    { "slider": "volume", "min": 0 },
                    { "slider": "volume", "stpe": 5 }
                  ]
                }
              }
            }
            """
        #expect(schemaError(json, file: "bad.json")
            == "bad.json:6:31: schema field 'kinds.volume.controls[1]': unknown key 'stpe' (did you mean 'step'?)")
        let badValue = "kinds:\n  song:\n    select: jump\n"
        #expect(schemaError(badValue, file: "s.yaml")
            == "s.yaml:3:5: schema field 'kinds.song.select': expected drill, detail, action:NAME or none, found 'jump'")
    }

    @Test("a kind named only as a childKind is a kind with defaults, and rows take it")
    func childKindAloneDeclaresAnEmptyKind() throws {
        let yaml = """
            root: artist
            kinds:
              artist: { title: "{name}", children: albums, childKind: album }
            """
        let schema = try SchemaFile(bytes: Array(yaml.utf8), file: "s.yaml").schema
        #expect(schema.kinds.map(\.kind) == ["artist", "album"])
        #expect(schema.template(named: "album") == Template(kind: "album"))
        let data = try DocumentReader.read(bytes: Array("""
            Rows:
              - { name: AC/DC, Children: [ { Title: Back in Black } ] }
            """.utf8), file: "d.yaml")
        let presenter = Presenter(source: DocumentSource(tree: data.tree), schema: schema)
        let artist = presenter.source.children(of: presenter.source.root)[0]
        let album = presenter.source.children(of: artist)[0]
        #expect(presenter.kind(of: artist)?.kind == "artist")
        #expect(presenter.kind(of: album)?.kind == "album")
        #expect(presenter.row(for: album).title == "Back in Black")
    }

    @Test("every bundled and example schema loads", arguments: [
        "Examples/Music/schema.yaml", "Examples/Planets/schema.yaml", "Examples/Sounds/schema.yaml",
        "Sources/drilldown/Bundled/Music/schema.yaml",
    ])
    func examplesLoad(_ path: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let loaded = try SchemaFile(contentsOf: root.appendingPathComponent(path).path)
        #expect(!loaded.schema.kinds.isEmpty)
    }
}
