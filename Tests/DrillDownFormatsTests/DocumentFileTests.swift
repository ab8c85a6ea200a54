import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

@Suite("Reading and writing files")
struct DocumentFileTests {
    /// A fresh empty directory for one test.
    static func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "drilldown-formats-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("reads a file and reports the detected format")
    func readsFile() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try DocumentWriter.write(TreeValue.seed.store, to: dir + "/Data.plist", format: .plistBinary)
        let (tree, format) = try DocumentReader.read(contentsOf: dir + "/Data.plist")
        #expect(format == .plistBinary)
        #expect(TreeValue(tree) == TreeValue.seed)
    }

    @Test("a missing file, a directory and an empty file are clear errors")
    func unreadable() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let missing = #expect(throws: FormatError.self) { try DocumentReader.read(contentsOf: dir + "/nope.json") }
        #expect(missing?.description == "\(dir)/nope.json: error: cannot open file: No such file or directory")
        let directory = #expect(throws: FormatError.self) { try DocumentReader.read(contentsOf: dir) }
        #expect(directory?.message == "is a directory, not a document")
        #expect(FileManager.default.createFile(atPath: dir + "/empty.json", contents: Data()))
        let empty = #expect(throws: FormatError.self) { try DocumentReader.read(contentsOf: dir + "/empty.json") }
        #expect(empty?.description == "\(dir)/empty.json:1:1: error: empty document; expected a JSON value")
    }

    @Test("writing replaces the file, keeps its permissions and leaves no temporary file")
    func atomicReplace() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/Data.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("old".utf8), attributes: [.posixPermissions: 0o640]))
        try DocumentWriter.write(TreeValue.seed.store, to: path, format: .json)
        #expect(try TreeValue(DocumentReader.read(contentsOf: path).tree) == TreeValue.seed)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["Data.json"])
    }

    @Test("a tree the format cannot hold leaves the original untouched")
    func unwritableTree() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/Data.plist"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("original".utf8)))
        let error = #expect(throws: FormatError.self) {
            try DocumentWriter.write(TreeValue.object([("x", .null)]).store, to: path, format: .plistXML)
        }
        #expect(error?.description == "\(path): error: property lists have no null; the value at TreePath 0 (x) is null")
        #expect(FileManager.default.contents(atPath: path) == Data("original".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["Data.plist"])
    }

    @Test("a write that cannot create its temporary file fails and leaves the original intact")
    func failedWrite() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The longest name a directory entry can have: the temporary file's longer name cannot be created.
        let path = dir + "/" + String(repeating: "n", count: 250) + ".json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("original".utf8)))
        let error = #expect(throws: FormatError.self) { try DocumentWriter.write(TreeValue.seed.store, to: path, format: .json) }
        #expect(error?.message.hasPrefix("cannot write: cannot create a temporary file") == true)
        #expect(FileManager.default.contents(atPath: path) == Data("original".utf8))
        let missingDir = #expect(throws: FormatError.self) { try DocumentWriter.write(TreeValue.seed.store, to: dir + "/no/such/x.json", format: .json) }
        #expect(missingDir != nil)
    }

    @Test("writing into a read-only directory fails and leaves the original intact", .enabled(if: geteuid() != 0, "root ignores directory permissions"))
    func readOnlyDirectory() throws {
        let dir = try Self.temporaryDirectory()
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir)
            try? FileManager.default.removeItem(atPath: dir)
        }
        let path = dir + "/Data.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data("original".utf8)))
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir)
        #expect(throws: FormatError.self) { try DocumentWriter.write(TreeValue.seed.store, to: path, format: .json) }
        #expect(FileManager.default.contents(atPath: path) == Data("original".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["Data.json"])
    }
}
