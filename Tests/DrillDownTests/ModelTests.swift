import DrillDown
import DrillDownFormats
import Foundation
import Testing

@Suite("OpenedData.model")
struct ModelTests {
    @Test("a document edited through the model is patched in place and the change is published")
    func documentEdit() async throws {
        let file = try exampleCopy("Sounds").appendingPathComponent("sounds.plist").path
        let before = try String(contentsOfFile: file, encoding: .utf8)
        let data = try DrillDown.open(file)
        let model = try data.model()
        var events = await model.changes().makeAsyncIterator()
        try await model.apply(.updateTitle([0], title: "Sounds & Haptics"))
        #expect(await events.next()?.origin == .apply)
        let after = try String(contentsOfFile: file, encoding: .utf8)
        #expect(after == before.replacingOccurrences(of: "<string>Sounds</string>", with: "<string>Sounds &amp; Haptics</string>"))
    }

    @Test("a relational mapping edited through the model commits to its table")
    func relationalEdit() async throws {
        let file = try exampleCopy("Music").appendingPathComponent("music.sqlite").path
        let data = try DrillDown.open(file)
        let model = try data.model()
        let path = try await model.apply(.updateTitle([0], title: "Renamed"))
        let reopened = try DrillDown.open(file)
        #expect(reopened.source.node(at: path).map { reopened.source.title(of: $0) } == "Renamed")
        #expect(await data.follow(model) != nil, "another writer's commit is followed")
    }

    @Test("with the file's lock held from the read, the model writes under that lock (no deadlock)")
    func heldLock() async throws {
        let file = try exampleCopy("Sounds").appendingPathComponent("sounds.plist").path
        var options = OpenOptions()
        options.holdsFileLock = true
        let data = try DrillDown.open(file, options: options)
        #expect(data.fileLock != nil)
        let model = try data.model()
        try await model.apply(.setAttribute([0], key: "plays", value: Scalar(inferring: "1")))
        data.fileLock?.unlock()
        let reread = try DocumentFile.read(file)
        let source = DocumentSource(tree: reread.tree)
        #expect(source.node(at: [0]).flatMap { source.attribute("plays", of: $0) } == Scalar(inferring: "1"))
    }

    @Test("a read-only file refuses the write and stays as it was")
    func readOnly() async throws {
        let file = try exampleCopy("Sounds").appendingPathComponent("sounds.plist").path
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file)
        let model = try DrillDown.open(file).model()
        await #expect(throws: EditError.self) { try await model.apply(.updateTitle([0], title: "x")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
    }
}
