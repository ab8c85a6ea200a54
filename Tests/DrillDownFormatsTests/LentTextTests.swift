#if os(Linux)
@testable import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// A mapped JSON file becomes its tree's text (``InputLoan``, ``TextRegion``): plain keys and
/// values are slices of the file, a value up to 15 bytes after its key shares its key's slice, and
/// everything else (escapes, wider gaps) is decoded into the room after the file.
@Suite("JSON text lent from a mapped file")
struct LentTextTests {
    /// Whether the mapping that `tree`'s text starts at is guarded (a slot holds it).
    static func guarded(_ address: Int) -> Bool {
        (0 ..< MappedFile.slots).contains { MappedFile.table[3 * $0] == address }
    }

    static func address(_ tree: TreeStore) -> Int { Int(bitPattern: tree.base.text.region?.base) }

    /// A document of more than 1 MiB with every way a key and value can sit in the file: plain,
    /// escaped either or both, a gap of 0 to 40 bytes between them, empty keys and values,
    /// non-ASCII, numbers and literals, keyless array elements, containers as values.
    static func document(_ seed: UInt64) -> [UInt8] {
        var rng = SeededGenerator(seed: seed)
        let keys = ["title", "", "é", "a\\\"b", "\\\\", "k\\u00e9y", "x y"]
        var members: [(key: String, text: String)] = []
        var size = 0
        while size < MappedFile.threshold + 4096 {
            let key = "\"" + keys.randomElement(using: &rng)! + "\""
            let before = String(repeating: " ", count: Int.random(in: 0 ... 20, using: &rng))
            let after = String(repeating: [" ", "\n", "\t"].randomElement(using: &rng)!, count: Int.random(in: 0 ... 20, using: &rng))
            let value = Int.random(in: 0 ..< 4, using: &rng) == 0
                ? JSONScanDifferentialTests.value(0, &rng)
                : ["\"plain\"", "\"\"", "\"tab\\there\"", "12", "-0.5e3", "true", "null", "\"😀é\"", "[1, \"a\", \"b\\n\"]"].randomElement(using: &rng)!
            let member = key + before + ":" + after + value
            members.append((key, member))
            size += member.utf8.count + 2
        }
        var rows: [String] = []
        var i = 0
        while i < members.count {
            // Up to n members, ending early rather than repeating a key in one object.
            let n = Int.random(in: 1 ... 6, using: &rng)
            var row: [(key: String, text: String)] = []
            while i < members.count, row.count < n, !row.contains(where: { $0.key == members[i].key }) {
                row.append(members[i])
                i += 1
            }
            rows.append("{" + row.map(\.text).joined(separator: ", ") + "}")
        }
        return Array(("[" + rows.joined(separator: ",\n") + "]").utf8)
    }

    @Test("the tree of a mapped file lends its text and equals the tree of its bytes", arguments: [1, 2, 3] as [UInt64])
    func sameTree(seed: UInt64) throws {
        let bytes = Self.document(seed)
        let path = try MappedFileTests.write(bytes, "lent-\(seed).json")
        defer { unlink(path) }
        let file = try DocumentFile.read(path)
        #expect(file.tree.base.text.region != nil, "the text is the mapped file")
        let copied = try DocumentReader.read(bytes: bytes, file: "lent.json").tree
        #expect(copied.base.text.region == nil)
        // Node by node (the first difference only: a dump of the whole document is megabytes),
        // keys and values compared as bytes too (the title of an array element is its index).
        let lent = JSONScanDifferentialTests.dump(file.tree), own = JSONScanDifferentialTests.dump(copied)
        #expect(lent.count == own.count)
        let a = Array(file.tree.nodes), b = Array(copied.nodes)
        let differs = a.indices.first { i in
            i >= b.count || file.tree.keyBytes(of: a[i]) != copied.keyBytes(of: b[i]) || file.tree.valueBytes(of: a[i]) != copied.valueBytes(of: b[i])
        }
        #expect(differs == nil, "node \(differs ?? 0): \(differs.map { lent[$0] } ?? "") against \(differs.map { own[$0] } ?? "")")
        let first = lent.indices.first { $0 >= own.count || lent[$0] != own[$0] }
        #expect(first == nil, "node \(first ?? 0): \(first.map { lent[$0] } ?? "") against \(first.map { own[$0] } ?? "")")
        // Most of the text is in the file: only escaped strings and far values were written after it.
        #expect(file.tree.text.count - MappedFile.pageSize < 2 * bytes.count)
    }

    @Test("random documents read from a lent copy give the tree of a copying read")
    func randomDocuments() throws {
        var rng = SeededGenerator(seed: 13)
        for _ in 0 ..< 2_000 {
            let bytes = Array(JSONScanDifferentialTests.value(0, &rng).utf8)
            let lent = try DocumentReader.read(lendingCopyOf: bytes, file: "lent.json", format: .json)
            let copied = try DocumentReader.read(bytes: bytes, file: "lent.json", format: .json).tree
            #expect(lent.base.text.region != nil)
            let a = Array(lent.nodes), b = Array(copied.nodes)
            let differs = a.indices.first { i in
                i >= b.count || lent.kind(of: a[i]) != copied.kind(of: b[i]) || lent.childCount(of: a[i]) != copied.childCount(of: b[i])
                    || lent.keyBytes(of: a[i]) != copied.keyBytes(of: b[i]) || lent.valueBytes(of: a[i]) != copied.valueBytes(of: b[i])
            }
            #expect(a.count == b.count && differs == nil, "\(String(decoding: bytes, as: UTF8.self)): node \(differs ?? -1)")
            if differs != nil { return }
        }
    }

    @Test("a tree keeps its mapping as long as it lives, and edits and writes work on it")
    func lifetime() throws {
        let bytes = Array(("[" + (0 ..< 40_000).map { "{\"title\": \"row \($0)\", \"n\": \($0)}" }.joined(separator: ",\n") + "]").utf8)
        let path = try MappedFileTests.write(bytes, "lent-life.json")
        defer { unlink(path) }
        var file: DocumentFile? = try DocumentFile.read(path)
        let first = Self.address(file!.tree)
        #expect(first != 0 && Self.guarded(first))
        var doc = EditableDocument(tree: file!.tree)
        try doc.apply(.setAttribute([7], key: "title", value: Scalar(.string, "seventh")))
        guard case .written = try file!.write(doc.tree) else {
            Issue.record("not written")
            return
        }
        let again = try DocumentFile.read(path)
        let rows = again.tree.children(of: again.tree.root)
        let seventh = again.tree.children(of: rows[rows.startIndex + 7])
        #expect(again.tree.value(of: seventh.first!)?.text == "seventh")
        #expect(again.tree.value(of: seventh.last!)?.text == "7")
        #expect(Self.guarded(Self.address(again.tree)))
        file = nil
        #expect(Self.guarded(first), "the edited tree still holds the first file's mapping")
        doc = EditableDocument(tree: TreeLiteral.null.tree)
        #expect(!Self.guarded(first))
    }

    @Test("a file truncated after it was read leaves its tree readable (zeros), not a SIGBUS")
    func truncatedAfterRead() throws {
        let bytes = Array(("[" + (0 ..< 100_000).map { "\"value \($0)\"" }.joined(separator: ",\n") + "]").utf8)
        let path = try MappedFileTests.write(bytes, "lent-truncated.json")
        defer { unlink(path) }
        let file = try DocumentFile.read(path)
        #expect(file.tree.base.text.region != nil)
        truncate(path, 0)
        let last = file.tree.children(of: file.tree.root).last!
        #expect(file.tree.valueBytes(of: last).allSatisfy { $0 == 0 })
        #expect(file.tree.count == 100_001)
    }
}
#endif
