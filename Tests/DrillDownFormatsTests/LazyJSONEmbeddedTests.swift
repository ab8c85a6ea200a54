import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// Text values holding JSON in a lazily indexed file (``LazyJSONSource/openingJSON(_:)``) open as
/// they do in the same file read whole (``EmbeddedJSONSource``), read-only.
@Suite("JSON inside a value of a lazily indexed file")
struct LazyJSONEmbeddedTests {
    static let text = #"""
        {"name": "svc", "config": "{\"port\": 8080, \"tags\": [\"a\", \"b\"], \"inner\": {\"x\": 1}}",
         "notes": "[not json", "items": [{"id": 0, "spec": " [1, {\"n\": 0}] "}, {"id": 1, "spec": "{}"}, "[2]"]}
        """#

    @Test("the same nodes, titles, values and paths as the full read, levels visited after a value included")
    func sameAsFullRead() throws {
        let path = LazyJSONSourceTests.file(Array(Self.text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let full = EmbeddedJSONSource(
            DocumentSource(tree: try DocumentReader.read(contentsOf: path, format: .json).tree, mode: .generic, name: "doc.json", embeddedJSON: .formats))
        let lazy = try LazyJSONSource(path: path, mode: .generic, name: "doc.json")
        let view = lazy.openingJSON(.formats)
        // A value opened before the levels after it are visited: their ids must not collide.
        #expect(view.children(of: try view.resolve("1")).count == 3)
        #expect(LazyJSONSourceTests.dump(view) == LazyJSONSourceTests.dump(full))
        #expect(view.title(of: try view.resolve("3.0.1.1.0")) == "n")
        #expect(view.readFailures.count == 0)
    }

    @Test("an edit inside is refused; the indexed search answers through the view")
    func readOnlyAndSearched() throws {
        let path = LazyJSONSourceTests.file(Array(Self.text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let view = try LazyJSONSource(path: path, mode: .generic).openingJSON()
        #expect(throws: EditError.self) { try view.lower([.setValue([1, 0], value: Scalar(.integer, "1"))]) }
        let found = try view.indexedFind(SearchQuery("notes", limit: 10), until: { false })
        #expect(found?.hits.map { view.path(of: $0).description } == ["2"])
    }
}
