import DrillDown
import DrillDownFormats
import Foundation
import Testing

/// The rules every front end's writes to a document file follow, tested once here, below them:
/// the terminal UI, the web app and the CLI's edit commands all change a file through the
/// ``DocumentModel`` that ``OpenedData/model(listen:readOnly:)`` gives.
@Suite("Editing a document file through the model")
struct FileSafetyTests {
    /// A JSON outline of rows `titles` in a fresh folder.
    func outline(_ titles: [String]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("drilldown-safety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("data.json").path
        let rows = titles.map { "    {\"Title\": \"\($0)\"}" }.joined(separator: ",\n")
        try "{\n  \"Rows\": [\n\(rows)\n  ]\n}\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Another writer's step, as another `drilldown` process makes it (under the file's lock).
    func writeElsewhere(_ path: String, _ changes: [Change]) throws {
        var file = try DocumentFile.read(path)
        var document = EditableDocument(tree: file.tree)
        try document.apply(changes)
        _ = try file.write(document.tree)
    }

    func titles(_ path: String) throws -> [String] {
        let source = DocumentSource(tree: try DocumentFile.read(path).tree)
        return source.children(of: source.root).map { source.title(of: $0) }
    }

    @Test("a step made on an older copy is applied to the file's newer version, never written over it")
    func stepOverNewerVersion() async throws {
        let path = try outline(["a", "b", "c"])
        let model = try DrillDown.open(path).model()
        try writeElsewhere(path, [.updateTitle([0], title: "theirs")])
        try await model.apply(.insert(NewNode(title: "mine"), parent: .root, index: 3))
        #expect(try titles(path) == ["theirs", "b", "c", "mine"])
        let source = model.versionedSource.source
        #expect(source.children(of: source.root).map { source.title(of: $0) } == ["theirs", "b", "c", "mine"])
    }

    @Test("a step that no longer applies to the file's newer version fails in words and writes nothing")
    func stepThatNoLongerApplies() async throws {
        let path = try outline(["a", "b", "c"])
        let model = try DrillDown.open(path).model()
        try writeElsewhere(path, [.delete([2])])
        let theirs = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = await #expect(throws: EditError.self) { try await model.apply(.updateTitle([2], title: "mine")) }
        #expect(error?.description.contains("no longer applies") == true, "\(error?.description ?? "")")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == theirs)
    }

    @Test("a file half written elsewhere is never written over: the step fails and a refresh says why")
    func halfWrittenFile() async throws {
        let path = try outline(["a", "b"])
        let model = try DrillDown.open(path).model()
        let half = "{\"Rows\": [{\"Title\": \"a\"}, {\"Tit"
        let handle = try #require(FileHandle(forWritingAtPath: path))   // in place, as a program writing without a rename
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(half.utf8))
        try handle.close()
        await #expect(throws: EditError.self) { try await model.refresh() }
        await #expect(throws: EditError.self) { try await model.apply(.delete([0])) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == half)
        // Once the other program finishes, the file is read again and edits go on from there.
        try writeWhole(path, ["x", "y"])
        #expect(try await model.refresh())
        try await model.apply(.delete([0]))
        #expect(try titles(path) == ["y"])
    }

    func writeWhole(_ path: String, _ titles: [String]) throws {
        let rows = titles.map { "{\"Title\": \"\($0)\"}" }.joined(separator: ", ")
        try "{\"Rows\": [\(rows)]}\n".write(toFile: path, atomically: true, encoding: .utf8)
    }

    @Test("a refresh picks up another writer's change, publishes it, and the undo history starts there")
    func refreshPicksUpChanges() async throws {
        let path = try outline(["a", "b"])
        let model = try DrillDown.open(path).model()
        try await model.apply(.updateTitle([1], title: "mine"))
        var events = await model.changes().makeAsyncIterator()
        #expect(try await model.refresh() == false, "the model's own write is not a change made elsewhere")
        try writeElsewhere(path, [.updateTitle([0], title: "theirs")])
        #expect(try await model.refresh())
        let event = await events.next()
        #expect(event?.origin == .external)
        #expect(event.map { $0.source.title(of: $0.source.children(of: $0.source.root)[0]) } == "theirs")
        #expect(try await model.undo() == nil, "a step before the other writer's is not undone over it")
        #expect(try titles(path) == ["theirs", "mine"])
    }

    @Test("undo and redo are written to the file: undo gives back its bytes")
    func undoRedoWritten() async throws {
        let path = try outline(["a", "b"])
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let model = try DrillDown.open(path).model()
        try await model.apply(.move([1], parent: .root, index: 0))
        #expect(try titles(path) == ["b", "a"])
        try await model.undo()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        try await model.redo()
        #expect(try titles(path) == ["b", "a"])
    }

    @Test("a YAML edit keeps the file's comments and form: one changed line")
    func yamlKeepsForm() async throws {
        let folder = try exampleCopy("Music")
        let path = folder.appendingPathComponent("library.yaml").path
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let model = try DrillDown.open(path, options: OpenOptions(schemaFile: folder.appendingPathComponent("schema.yaml").path)).model()
        try await model.apply(.updateTitle([0], title: "Miles Dewey Davis"))
        let after = try String(contentsOfFile: path, encoding: .utf8)
        let old = before.split(separator: "\n", omittingEmptySubsequences: false)
        let new = after.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(old.count == new.count)
        #expect(zip(old, new).filter { $0 != $1 }.map { "\($0) → \($1)" } == ["  - name: Miles Davis →   - name: Miles Dewey Davis"])
        #expect(after.hasPrefix("# A small music library"))
    }
}
