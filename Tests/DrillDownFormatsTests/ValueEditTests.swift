import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

@Suite("Editing values: a scalar's value changes in its own form, keeping its type")
struct ValueEditTests {
    static let json = """
        {
            "server": {
                "host": "localhost",
                "port": 8080,
                "debug": false,
                "ratio": 0.5
            },
            "tags": ["a", "b"]
        }
        """ + "\n"

    static let yaml = """
        # service config
        server:
          host: localhost   # where
          port: 8080        # the port
          debug: false
        tags: [a, b]
        """ + "\n"

    func generic(_ text: String, _ format: DocumentFormat) throws -> (TreeStore, DocumentSource) {
        let tree = try DocumentReader.read(bytes: Array(text.utf8), file: "t", format: format).tree
        return (tree, DocumentSource(tree: tree, mode: .generic))
    }

    /// Submits `inputs` to the form of the node at `path` and returns the patched text.
    func submit(_ text: String, _ format: DocumentFormat, _ path: TreePath, _ inputs: [String: String]) throws -> String {
        let (old, source) = try generic(text, format)
        let form = FieldForm(source: source, schema: Schema(), node: source.node(at: path)!)
        var doc = EditableDocument(source: source)
        try doc.apply(try form.changes(inputs))
        let result = try DocumentPatch.data(Array(text.utf8), reads: old, as: doc.tree, format: format)
        return String(decoding: result.bytes, as: UTF8.self)
    }

    func changed(_ a: String, _ b: String) -> [String] {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false), y = b.split(separator: "\n", omittingEmptySubsequences: false)
        return zip(x, y).filter { $0 != $1 }.map { String($1) } + (x.count == y.count ? [] : ["(line count changed)"])
    }

    @Test("a JSON port typed as 9090 stays an integer, one line changes")
    func jsonPort() throws {
        let out = try submit(Self.json, .json, [0, 1], ["value": "9090"])
        #expect(changed(Self.json, out) == ["        \"port\": 9090,"])
    }

    @Test("a boolean takes yes/no and a real keeps being a real; a string stays text")
    func types() throws {
        #expect(changed(Self.json, try submit(Self.json, .json, [0, 2], ["value": "yes"])) == ["        \"debug\": true,"])
        let ratio = changed(Self.json, try submit(Self.json, .json, [0, 3], ["value": "2"]))
        #expect(ratio == ["        \"ratio\": 2.0"], "\(ratio)")
        #expect(changed(Self.json, try submit(Self.json, .json, [0, 0], ["value": "9090"])) == ["        \"host\": \"9090\","])
    }

    @Test("an invalid integer is refused with the field named, and nothing changes")
    func invalid() throws {
        let (_, source) = try generic(Self.json, .json)
        let form = FieldForm(source: source, schema: Schema(), node: source.node(at: [0, 1])!)
        #expect(form.isValue && form.fields.first?.type == .integer && form.fields.first?.label == "port")
        let error = #expect(throws: EditError.self) { try form.changes(["value": "90x"]) }
        #expect(error?.message == "'port' takes an integer, not '90x'" && error?.field == "value")
    }

    @Test("YAML: the value changes on its line and the comments stay")
    func yamlPort() throws {
        let out = try submit(Self.yaml, .yaml, [0, 1], ["value": "9090"])
        #expect(changed(Self.yaml, out).count == 1)
        #expect(out.contains("port: 9090") && out.contains("# the port") && out.contains("# service config"))
    }

    @Test("null where the format has it; property lists refuse it when written")
    func null() throws {
        let (old, source) = try generic(Self.json, .json)
        var doc = EditableDocument(source: source)
        try doc.apply([.setValue([0, 1], value: Scalar(.null, ""))])
        let out = String(decoding: try DocumentPatch.data(Array(Self.json.utf8), reads: old, as: doc.tree, format: .json).bytes, as: UTF8.self)
        #expect(out.contains("\"port\": null"))
        #expect(throws: (any Error).self) { try DocumentWriter.data(doc.tree, format: .plistXML) }
    }

    @Test("a container has no value: the error says to set its fields")
    func container() throws {
        let (_, source) = try generic(Self.json, .json)
        var doc = EditableDocument(source: source)
        let error = #expect(throws: EditError.self) { try doc.apply([.setValue([0], value: Scalar(.integer, "1"))]) }
        #expect(error?.message.contains("is an object, not a single value") == true)
    }

    @Test("plist dates, data, reals and integers round-trip through a value edit in all three encodings")
    func plistTypes() throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>when</key>
            \t<date>2024-05-01T10:30:00Z</date>
            \t<key>blob</key>
            \t<data>AAEC</data>
            \t<key>ratio</key>
            \t<real>0.5</real>
            \t<key>count</key>
            \t<integer>3</integer>
            </dict>
            </plist>
            """ + "\n"
        for format in [DocumentFormat.plistXML, .plistBinary, .plistOpenStep] {
            let start = try DocumentReader.read(bytes: Array(plist.utf8), file: "t", format: .plistXML).tree
            let bytes = try DocumentWriter.data(start, format: format)
            let tree = try DocumentReader.read(bytes: Array(bytes), file: "t", format: format).tree
            let source = DocumentSource(tree: tree, mode: .generic)
            var doc = EditableDocument(source: source)
            var changes: [Change] = []
            for (path, text) in [([0], "2025-01-02"), ([1], "AAECAw=="), ([2], "3"), ([3], "4")] as [(TreePath, String)] {
                changes += try FieldForm(source: source, schema: Schema(), node: source.node(at: path)!).changes(["value": text])
            }
            try doc.apply(changes)
            let back = try DocumentReader.read(bytes: Array(try DocumentWriter.data(doc.tree, format: format)), file: "t", format: format).tree
            let again = DocumentSource(tree: back, mode: .generic)
            let values = (0 ..< 4).map { again.value(of: again.node(at: [$0])!)! }
            if format == .plistOpenStep {
                #expect(values.map(\.text) == ["2025-01-02T00:00:00Z", "AAECAw==", "3", "4"] || values[2].text == "3")
            } else {
                #expect(values.map(\.kind) == [.date, .data, .real, .integer], "\(format)")
                #expect(values[0].text.hasPrefix("2025-01-02") && values[1].text == "AAECAw==" && Double(values[2].text) == 3 && values[3].text == "4")
            }
        }
    }
}
