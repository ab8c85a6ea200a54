import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// A small seeded generator, so a failing property run can be replayed.
struct Seeded: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite("Patching document text: a change rewrites only its own bytes")
struct DocumentPatchTests {
    static let yaml = """
        # My library, kept in git by hand.
        Title: Music   # the root
        Rows:
          - name: Miles Davis
            genre: Jazz
            # albums follow
            albums:
              - title: Kind of Blue
                year: 1959
                songs:
                  - { name: So What, length: 562 }
                  - { name: 'Blue in Green', length: 337 }
              - title: Empty
                year: 1960
          - name: "John Coltrane"
            genre: Jazz   # modal
        """ + "\n"

    static let json = """
        {
            "Title": "Music",
            "Rows": [
                {"name": "Miles Davis", "genre": "Jazz", "n": 1.50},
                {
                    "name": "John Coltrane",
                    "genre": "Jazz",
                    "albums": []
                }
            ]
        }
        """ + "\n"

    /// The sample's levels: artists › albums › songs.
    static let keys = OutlineKeys.standard.preferring(title: [], children: ["albums", "songs"])

    func read(_ text: String, _ format: DocumentFormat) throws -> TreeStore {
        try DocumentReader.read(bytes: Array(text.utf8), file: "t", format: format).tree
    }

    /// Applies `changes` to `text` (read in outline mode) and returns the patched text, checking it reads as the edited tree.
    func edit(_ text: String, _ format: DocumentFormat, _ changes: [Change], schema: Schema = Schema()) throws -> (String, Bool) {
        let old = try read(text, format)
        var doc = EditableDocument(source: DocumentSource(tree: old, keys: Self.keys), schema: schema)
        try doc.apply(changes)
        let result = try DocumentPatch.data(Array(text.utf8), reads: old, as: doc.tree, format: format)
        let patched = String(decoding: result.bytes, as: UTF8.self)
        #expect(try read(patched, format).isStructurallyEqual(to: doc.tree))
        return (patched, result.patched)
    }

    /// The lines of `b` that differ from `a` (same line count) or `nil` when the counts differ.
    func changedLines(_ a: String, _ b: String) -> [String] {
        let x = a.split(separator: "\n", omittingEmptySubsequences: false), y = b.split(separator: "\n", omittingEmptySubsequences: false)
        let d = y.difference(from: x)
        return d.insertions.map { if case .insert(_, let e, _) = $0 { String(e) } else { "" } }
            + d.removals.map { if case .remove(_, let e, _) = $0 { "-" + String(e) } else { "" } }
    }

    @Test("renaming one row of a commented YAML file changes one line; comments and quoting stay")
    func yamlRename() throws {
        let (out, patched) = try edit(Self.yaml, .yaml, [.updateTitle([1], title: "Trane")])
        #expect(patched)
        #expect(changedLines(Self.yaml, out).sorted() == ["-  - name: \"John Coltrane\"", "  - name: \"Trane\""].sorted())
        #expect(out.contains("# the root") && out.contains("# albums follow") && out.contains("# modal"))
    }

    @Test("setting a value it already has writes the same bytes")
    func noChange() throws {
        let (out, _) = try edit(Self.yaml, .yaml, [.setAttribute([0], key: "genre", value: Scalar(.string, "Jazz"))])
        #expect(out == Self.yaml)
    }

    @Test("YAML: set, add and delete keep every untouched line")
    func yamlEdits() throws {
        var (out, patched) = try edit(Self.yaml, .yaml, [.setAttribute([0], key: "genre", value: Scalar(.string, "Cool Jazz"))])
        #expect(patched && changedLines(Self.yaml, out).count == 2)
        (out, patched) = try edit(Self.yaml, .yaml, [.setAttribute([0], key: "born", value: Scalar(.integer, "1926"))])
        #expect(patched && changedLines(Self.yaml, out) == ["    born: 1926"])
        (out, patched) = try edit(Self.yaml, .yaml, [.insert(NewNode(title: "Flamenco"), parent: [0, 0], index: nil)])
        #expect(patched && changedLines(Self.yaml, out).count == 1)
        #expect(out.contains("          - {Title: Flamenco}") || out.contains("- {name: Flamenco}"))
        (out, patched) = try edit(Self.yaml, .yaml, [.delete([0, 1])])
        #expect(patched && changedLines(Self.yaml, out) == ["-      - title: Empty", "-        year: 1960"])
        (out, patched) = try edit(Self.yaml, .yaml, [.delete([0, 0, 1])])
        #expect(patched && changedLines(Self.yaml, out) == ["-          - { name: 'Blue in Green', length: 337 }"])
        (out, patched) = try edit(Self.yaml, .yaml, [.updateTitle([0, 0, 1], title: "Green")])
        #expect(patched && out.contains("{ name: 'Green', length: 337 }"))
        (out, patched) = try edit(Self.yaml, .yaml, [.insert(NewNode(title: "Ascension"), parent: [1], index: nil)])
        #expect(patched && out.contains("# modal") && out.hasPrefix("# My library"))
    }

    @Test("JSON: rename, set, add and delete keep the layout and number spellings")
    func jsonEdits() throws {
        var (out, patched) = try edit(Self.json, .json, [.updateTitle([1], title: "Trane")])
        #expect(patched && changedLines(Self.json, out).count == 2 && out.contains("1.50"))
        (out, patched) = try edit(Self.json, .json, [.insert(NewNode(title: "Ornette", attributes: [Attribute(key: "genre", value: Scalar(.string, "Free"))]), parent: .root, index: nil)])
        #expect(patched && out.contains("        {\n            \"name\": \"Ornette\",\n            \"genre\": \"Free\"\n        }\n    ]"))
        (out, patched) = try edit(Self.json, .json, [.delete([0])])
        #expect(patched && !out.contains("Miles") && out.contains("1.50") == false && out.contains("\"albums\": []"))
        (out, patched) = try edit(Self.json, .json, [.insert(NewNode(title: "Giant Steps"), parent: [1], index: nil)])
        #expect(patched && out.contains("\"albums\": [\n                {\n"), "\(out)")
        (out, patched) = try edit("{\"a\":[1,2,3],\"b\":{\"c\":true}}", .json, [.setAttribute(.root, key: "d", value: Scalar(.integer, "4"))])
        #expect(out == "{\"a\":[1,2,3],\"b\":{\"c\":true},\"d\":4}")
    }

    @Test("a song added under an album of the music library gets the schema's title key and lands in songs:")
    func schemaKeys() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/Music")
        let text = try String(contentsOf: folder.appendingPathComponent("library.yaml"), encoding: .utf8)
        let schema = try SchemaFile(contentsOf: folder.appendingPathComponent("schema.yaml").path).schema
        let tree = try read(text, .yaml)
        let keys = OutlineKeys.standard.preferring(title: schema.titleKeys, children: schema.childrenKeys)
        var doc = EditableDocument(source: DocumentSource(tree: tree, keys: keys), schema: schema)
        let path = try doc.apply(.insert(NewNode(title: "Nardis"), parent: [0, 0], index: nil))
        let song = doc.source.node(at: path)!
        #expect(doc.tree.key(of: doc.tree.children(of: song)[0]) == "name")
        #expect(doc.tree.key(of: doc.tree.parent(of: song)!) == "songs")
        let patched = try DocumentPatch.data(Array(text.utf8), reads: tree, as: doc.tree, format: .yaml)
        #expect(patched.patched)
        #expect(changedLines(text, String(decoding: patched.bytes, as: UTF8.self)) == ["          - {name: Nardis}"])
        // A song has no children in the schema: adding one is refused.
        #expect(throws: EditError.self) { try doc.apply(.insert(NewNode(title: "x"), parent: path, index: nil)) }
    }

    // MARK: Property

    func randomChange(_ s: DocumentSource, _ rng: inout Seeded) -> Change {
        var all: [TreePath] = []
        var stack: [(NodeID, TreePath)] = [(s.root, .root)]
        while let (n, p) = stack.popLast() {
            all.append(p)
            for (i, c) in s.children(of: n).enumerated() { stack.append((c, p.appending(i))) }
        }
        let path = all.randomElement(using: &rng)!
        let other = all.randomElement(using: &rng)!
        let title = ["a", "b c", "Zed", "x: y", "#hash", "'q'", "\"dq\"", "true", "12", "ünï", "- dash", "{f}"].randomElement(using: &rng)!
        let value: Scalar = [Scalar(.integer, "7"), Scalar(.string, "s, t"), Scalar(.bool, "true"), Scalar(.real, "2.5"), Scalar(.string, "line\nbreak")]
            .randomElement(using: &rng)!
        let count = s.node(at: path).map { s.childCount(of: $0) } ?? 0
        let index: Int? = Bool.random(using: &rng) ? nil : Int.random(in: 0 ... count, using: &rng)
        switch Int.random(in: 0 ..< 10, using: &rng) {
        case 0, 1:
            var node = NewNode(title: title)
            if Bool.random(using: &rng) { node.attributes = [Attribute(key: "plays", value: value)] }
            return .insert(node, parent: path, index: index)
        case 2, 3: return .updateTitle(path, title: title)
        case 4, 5: return .setAttribute(path, key: ["plays", "genre", "k"].randomElement(using: &rng)!, value: Bool.random(using: &rng) ? nil : value)
        case 6, 7: return .delete(path)
        default: return .move(path, parent: other, index: index)
        }
    }

    func property(_ text: String, _ format: DocumentFormat, seed: UInt64) throws {
        var rng = Seeded(state: seed)
        var patchedCount = 0, total = 0
        for round in 0 ..< 60 {
            var current = Array(text.utf8)
            var tree = try DocumentReader.read(bytes: current, file: "t", format: format).tree
            for _ in 0 ..< 6 {
                var doc = EditableDocument(source: DocumentSource(tree: tree, keys: Self.keys))
                // Group commit: several steps go into one write.
                for _ in 0 ..< Int.random(in: 1 ... 3, using: &rng) { _ = try? doc.apply(randomChange(doc.source, &rng)) }
                let result = try DocumentPatch.data(current, reads: tree, as: doc.tree, format: format)
                let reread = try DocumentReader.read(bytes: result.bytes, file: "t", format: format).tree
                #expect(reread.isStructurallyEqual(to: doc.tree), "round \(round): \(String(decoding: result.bytes, as: UTF8.self))")
                total += 1
                if result.patched { patchedCount += 1 }
                current = result.bytes
                tree = reread
            }
        }
        // Nearly every change is a patch, not a rewrite.
        #expect(patchedCount * 10 >= total * 8, "\(patchedCount) of \(total) patched")
    }

    @Test("property: random edits patched into JSON read back as the edited tree")
    func jsonProperty() throws {
        try property(Self.json, .json, seed: 1)
        try property("{\"Rows\":[{\"Title\":\"a\",\"Children\":[{\"Title\":\"b\"}]},{\"Title\":\"c\"}]}", .json, seed: 2)
    }

    @Test("property: random edits patched into commented YAML read back as the edited tree")
    func yamlProperty() throws {
        try property(Self.yaml, .yaml, seed: 3)
    }
}

@Suite("Document files: writes patch the text and never go over a newer version")
struct DocumentFileWriteTests {
    @Test("a second writer holding an older copy gets the newer version instead of writing over it")
    func stale() throws {
        let dir = try DocumentFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/data.yaml"
        try "# notes\nRows:\n  - Title: a   # first\n".write(toFile: path, atomically: true, encoding: .utf8)
        var first = try DocumentFile.read(path)
        var second = try DocumentFile.read(path)
        var doc = EditableDocument(tree: first.tree)
        try doc.apply(.insert(NewNode(title: "b"), parent: .root, index: nil))
        guard case .written(patched: true) = try first.write(doc.tree) else { Issue.record("not patched"); return }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "# notes\nRows:\n  - Title: a   # first\n  - Title: b\n")
        var other = EditableDocument(tree: second.tree)
        try other.apply(.updateTitle([0], title: "A"))
        guard case .stale(let newer) = try second.write(other.tree) else { Issue.record("wrote over a newer version"); return }
        #expect(newer.isStructurallyEqual(to: doc.tree))
        // Applied again to the newer version, the change goes in with the other writer's.
        var again = EditableDocument(tree: newer)
        try again.apply(.updateTitle([0], title: "A"))
        guard case .written = try second.write(again.tree) else { Issue.record("not written"); return }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "# notes\nRows:\n  - Title: A   # first\n  - Title: b\n")
    }

    /// A write renames its new file in while its lock is still on the file it replaced, so another
    /// writer that opens the path just then locks the new file at once and may replace it before
    /// the first one has noted what it wrote. The next write of the first must then see a newer
    /// version, not take that writer's file for its own and go over its change.
    @Test("another writer replacing the file right after a write's rename is not overwritten")
    func writerRightAfterRename() throws {
        let dir = try DocumentFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/data.json"
        try "{\"Rows\": [{\"Title\": \"start\"}]}\n".write(toFile: path, atomically: true, encoding: .utf8)
        var server = try DocumentFile.read(path)
        server.afterRename = {
            // A `drilldown add` that opened the path just after the rename: the lock is free.
            var cli = try! DocumentFile.read(path)
            var doc = EditableDocument(tree: cli.tree)
            _ = try! doc.apply(.insert(NewNode(title: "cli"), parent: .root, index: nil))
            guard case .written = try! cli.write(doc.tree) else { Issue.record("the other writer could not write"); return }
        }
        var doc = EditableDocument(tree: server.tree)
        try doc.apply(.insert(NewNode(title: "server-1"), parent: .root, index: nil))
        guard case .written = try server.write(doc.tree) else { Issue.record("not written"); return }
        server.afterRename = {}
        try doc.apply(.insert(NewNode(title: "server-2"), parent: .root, index: nil))
        guard case .stale(let newer) = try server.write(doc.tree) else {
            Issue.record("wrote over the other writer's version")
            return
        }
        var again = EditableDocument(tree: newer)
        try again.apply(.insert(NewNode(title: "server-2"), parent: .root, index: nil))
        guard case .written = try server.write(again.tree) else { Issue.record("not written"); return }
        let rows = DocumentSource(tree: try DocumentFile.read(path).tree)
        #expect(rows.children(of: rows.root).map { rows.title(of: $0) } == ["start", "server-1", "cli", "server-2"])
    }

    @Test("a write that changes nothing leaves the file and its time alone")
    func unchanged() throws {
        let dir = try DocumentFileTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/data.json"
        try "{ \"Rows\": [ {\"Title\": \"a\", \"on\": true} ] }".write(toFile: path, atomically: true, encoding: .utf8)
        var file = try DocumentFile.read(path)
        let before = FileStamp.of(path)
        var doc = EditableDocument(tree: file.tree)
        try doc.apply(.setAttribute([0], key: "on", value: Scalar(.bool, "true")))
        guard case .unchanged = try file.write(doc.tree) else { Issue.record("wrote"); return }
        #expect(FileStamp.of(path) == before)
    }
}
