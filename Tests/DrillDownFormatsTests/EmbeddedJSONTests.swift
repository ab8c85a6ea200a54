import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

@Suite("JSON inside a text value: opened as a subtree, TreePaths continue into it, edits rewrite the text")
struct EmbeddedJSONTests {
    static let json = #"""
        {
          "name": "svc",
          "config": " {\"port\": 8080, \"tags\": [\"a\", \"b\"], \"inner\": {\"x\": 1, \"deep\": \"[true, null]\"}} ",
          "notes": "[not json",
          "list": ["plain", "[1, 2, 3]", "{}"]
        }
        """#

    func view(_ text: String = json, hook: EmbeddedJSON = .formats) throws -> EmbeddedJSONSource {
        let tree = try DocumentReader.read(bytes: Array(text.utf8), file: "t.json", format: .json).tree
        return EmbeddedJSONSource(DocumentSource(tree: tree, mode: .generic, embeddedJSON: hook))
    }

    func document(_ text: String = json) throws -> EditableDocument {
        let tree = try DocumentReader.read(bytes: Array(text.utf8), file: "t.json", format: .json).tree
        return EditableDocument(source: DocumentSource(tree: tree, mode: .generic, embeddedJSON: .formats))
    }

    /// The text of the document's value at `path` (the document itself, not the opened view).
    func text(_ doc: EditableDocument, _ path: TreePath) -> String? {
        doc.source.node(at: path).flatMap { doc.source.value(of: $0)?.text }
    }

    @Test("TreePaths continue into the JSON of a text value, and back")
    func paths() throws {
        let v = try view()
        let config = try #require(v.node(at: [1]))
        #expect(v.childCount(of: config) == 3)
        #expect(v.children(of: config).map { v.title(of: $0) } == ["port", "tags", "inner"])
        let b = try v.resolve("1.1.1")
        #expect(v.title(of: b) == "1")
        #expect(v.value(of: b) == Scalar(.string, "b"))
        #expect(v.path(of: b) == [1, 1, 1])
        #expect(v.titlePath(of: b) == "config/tags/1")
        #expect(try v.resolve("config/inner/x") == v.node(at: [1, 2, 0]))
        #expect(v.attributes(of: try v.resolve("1.2")).map(\.key) == ["x", "deep"])
        #expect(v.owner(of: b) == config)
        // The text value keeps its title and its text.
        #expect(v.title(of: config) == "config")
        #expect(v.value(of: config)?.text.hasPrefix(" {\"port\"") == true)
        // An array element and a JSON value inside the JSON (opened in turn).
        #expect(v.value(of: try v.resolve("3.1.2")) == Scalar(.integer, "3"))
        #expect(v.value(of: try v.resolve("1.2.1.0")) == Scalar(.bool, "true"))
        #expect(v.path(of: try v.resolve("1.2.1.1")) == [1, 2, 1, 1])
        // An empty object opens to no rows.
        #expect(v.childCount(of: try v.resolve("3.2")) == 0)
        #expect(throws: PathError.self) { try v.resolve("1.5") }
    }

    @Test("The presenter shows the value as a row that drills, its members as rows")
    func rows() throws {
        let v = try view()
        let presenter = Presenter(source: v)
        let row = presenter.row(for: try #require(v.node(at: [1])))
        #expect(row.drills)
        #expect(row.childCount == 3)
        let inside = presenter.rows(of: try #require(v.node(at: [1])))
        #expect(inside.map(\.path) == [[1, 0], [1, 1], [1, 2]])
        #expect(inside.map(\.title) == ["port", "tags", "inner"])
        #expect(inside[0].subtitle == "8080")
    }

    @Test("A value is parsed only when its children are asked for, once per version")
    func lazy() throws {
        let v = try view()
        let base = v.document.capacity
        let config = try #require(v.node(at: [1]))
        _ = v.title(of: config)
        _ = v.value(of: config)
        _ = v.attributes(of: config)
        #expect(v.capacity == base)  // nothing parsed yet
        _ = v.children(of: config)
        let opened = v.capacity
        #expect(opened > base)
        _ = v.children(of: config)
        _ = EmbeddedJSONSource(v.document).children(of: config)  // another view of the same version
        #expect(v.capacity == opened)
        #expect(v.children(of: config).allSatisfy { $0.index >= base && $0.index < opened })
    }

    @Test("Text that is not a JSON object or array stays text, without an error", arguments: [
        "[not json", "{", "[1, 2", "{\"a\": }", "plain", "42", "\"[1]\"", "{} trailing", "[1]]", " ",
    ])
    func invalid(_ value: String) throws {
        let escaped = String(data: try JSONSerialization.data(withJSONObject: [value]), encoding: .utf8)!
        let v = try view("{\"v\": \(escaped.dropFirst().dropLast())}")
        let node = try #require(v.node(at: [0]))
        #expect(v.childCount(of: node) == 0)
        #expect(v.value(of: node) == Scalar(.string, value))
        #expect(!v.holdsJSON(node))
        #expect(Presenter(source: v).row(for: node).drills == false)
    }

    @Test("Limits: a value over the size budget or nested past the reader's depth stays text")
    func limits() throws {
        var small = EmbeddedJSON.formats
        small.maxBytes = 16
        let v = try view(hook: small)
        #expect(v.childCount(of: try #require(v.node(at: [1]))) == 0)
        #expect(v.childCount(of: try #require(v.node(at: [3, 1]))) == 3)  // "[1, 2, 3]" is within 16 bytes
        let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        let d = try view("{\"deep\": \"\(deep)\"}")
        #expect(d.childCount(of: try #require(d.node(at: [0]))) == 0)
    }

    @Test("Setting a value inside rewrites the text compactly, keys in order")
    func setValue() throws {
        var doc = try document()
        let path = try doc.apply(.setValue([1, 0], value: Scalar(.integer, "9090")))
        #expect(path == [1, 0])
        #expect(text(doc, [1]) == #"{"port":9090,"tags":["a","b"],"inner":{"x":1,"deep":"[true, null]"}}"#)
        let v = try #require(doc.snapshot as? EmbeddedJSONSource)
        #expect(v.value(of: try v.resolve("1.0")) == Scalar(.integer, "9090"))
        doc.undo()
        #expect(text(doc, [1])?.contains("8080") == true)
        doc.redo()
        #expect(text(doc, [1])?.contains("9090") == true)
    }

    @Test("Rename, add, delete and move inside; a move across the boundary is refused")
    func structure() throws {
        var doc = try document()
        try doc.apply(.updateTitle([1, 2], title: "outer"))
        #expect(text(doc, [1]) == #"{"port":8080,"tags":["a","b"],"outer":{"x":1,"deep":"[true, null]"}}"#)
        let added = try doc.apply(.insert(NewNode(title: "debug", value: Scalar(.bool, "true")), parent: [1], index: nil))
        #expect(added == [1, 3])
        #expect(text(doc, [1])?.hasSuffix(#","debug":true}"#) == true)
        try doc.apply(.delete([1, 1, 0]))
        #expect(text(doc, [1])?.contains(#""tags":["b"]"#) == true)
        try doc.apply(.move([1, 3], parent: [1], index: 0))
        #expect(text(doc, [1])?.hasPrefix(#"{"debug":true,"port""#) == true)
        // Nested: a JSON text inside the JSON is rewritten inside out.
        try doc.apply(.setValue([1, 3, 1, 1], value: Scalar(.integer, "7")))
        #expect(text(doc, [1])?.contains(#""deep":"[true,7]""#) == true)
        // Errors name the full path; nothing changes.
        let before = text(doc, [1])
        #expect(throws: EditError.self) { try doc.apply(.move([1, 0], parent: .root, index: nil)) }
        #expect(throws: EditError.self) { try doc.apply(.move([0], parent: [1], index: nil)) }
        do {
            try doc.apply(.delete([1, 9]))
            Issue.record("deleted a row that is not there")
        } catch {
            #expect(error.path?.indices.first == 1)
        }
        #expect(text(doc, [1]) == before)
    }

    @Test("The edited document writes the new text as an escaped string")
    func written() throws {
        var doc = try document()
        try doc.apply(.setValue([3, 1, 0], value: Scalar(.string, "one")))
        let bytes = try DocumentWriter.data(doc.tree, format: .json)
        let object = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
        #expect((object?["list"] as? [Any])?[1] as? String == #"["one",2,3]"#)
    }

    @Test("The text value itself is still edited as its text (one value field), replacing the JSON")
    func ownText() throws {
        var doc = try document()
        let view = try #require(doc.snapshot as? EmbeddedJSONSource)
        let form = FieldForm(source: view, schema: Schema(), node: try #require(view.node(at: [1])))
        #expect(form.isValue)
        try doc.apply(try form.changes([FieldForm.valueKey: #"{"a": [1]}"#]))
        #expect(text(doc, [1]) == #"{"a": [1]}"#)
        let after = try #require(doc.snapshot as? EmbeddedJSONSource)
        #expect(after.titlePath(of: try after.resolve("1.0.0")) == "config/a/0")
    }
}
