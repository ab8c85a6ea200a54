import DrillDownCore
@testable import DrillDownFormats
import Testing

@Suite("Patching costs what changed: versions of one document are compared only where edits wrote")
struct DocumentPatchCostTests {
    /// An outline file like Scripts/gen-outline.py writes: `groups` × `rows` rows, one per line.
    func outlineText(groups: Int, rows: Int) -> [UInt8] {
        var s = "{\"Rows\": [\n"
        for g in 0 ..< groups {
            s += "  {\"Title\": \"Group \(g)\", \"Children\": [\n"
            s += (0 ..< rows).map { r in "     {\"Title\": \"Row \(g).\(r)\", \"value\": \(g * rows + r)}" }.joined(separator: ",\n")
            s += "\n  ]}" + (g < groups - 1 ? ",\n" : "\n")
        }
        return Array((s + "]}\n").utf8)
    }

    @Test("one rename of a 270k-node document looks at a few nodes, not at every node")
    func renameLooksAtWhatChanged() throws {
        let text = outlineText(groups: 300, rows: 300)
        let old = try DocumentReader.read(bytes: text, file: "t", format: .json).tree
        var doc = EditableDocument(source: DocumentSource(tree: old))
        try doc.apply(.updateTitle([150, 5], title: "Renamed"))
        let fast = TreeDiff.diff(from: old, to: doc.tree)
        let whole = TreeDiff.diff(from: old, to: doc.tree, whole: true)
        #expect(fast.edits == whole.edits)
        #expect(fast.visited <= 40, "\(fast.visited) nodes looked at for one rename")
        #expect(whole.visited >= old.count, "the whole comparison looked at \(whole.visited) of \(old.count)")
        // And the next write, from that version: still a few nodes.
        let written = doc.tree
        try doc.apply(.delete([20, 7]))
        try doc.apply(.insert(NewNode(title: "New"), parent: [40], index: 3))
        let next = TreeDiff.diff(from: written, to: doc.tree)
        #expect(next.visited <= 80, "\(next.visited)")
        let patched = try DocumentPatch.data(text, reads: old, as: written, format: .json)
        #expect(patched.patched)
        let again = try DocumentPatch.data(patched.bytes, reads: written, as: doc.tree, format: .json)
        #expect(try DocumentReader.read(bytes: again.bytes, file: "t", format: .json).tree.isStructurallyEqual(to: doc.tree))
    }

    /// Writes like ``DocumentFile`` does: each write's old tree is the tree written before (a
    /// version of the same document), with undo and redo between writes.
    func chained(_ text: String, _ format: DocumentFormat, seed: UInt64) throws {
        var rng = Seeded(state: seed)
        let helper = DocumentPatchTests()
        var current = Array(text.utf8)
        let first = try DocumentReader.read(bytes: current, file: "t", format: format).tree
        var doc = EditableDocument(source: DocumentSource(tree: first, keys: DocumentPatchTests.keys))
        var written = first
        var patchedCount = 0
        for round in 0 ..< 200 {
            for _ in 0 ..< Int.random(in: 1 ... 3, using: &rng) {
                switch Int.random(in: 0 ..< 8, using: &rng) {
                case 0: doc.undo()
                case 1: doc.redo()
                default: _ = try? doc.apply(helper.randomChange(doc.source, &rng))
                }
            }
            #expect(doc.tree.changedSubtrees(since: written) != nil)
            let result = try DocumentPatch.data(current, reads: written, as: doc.tree, format: format)
            let reread = try DocumentReader.read(bytes: result.bytes, file: "t", format: format).tree
            #expect(reread.isStructurallyEqual(to: doc.tree), "round \(round): \(String(decoding: result.bytes, as: UTF8.self))")
            if !reread.isStructurallyEqual(to: doc.tree) { return }
            if result.patched { patchedCount += 1 }
            current = result.bytes
            written = doc.tree
        }
        #expect(patchedCount >= 150, "\(patchedCount) of 200 patched")
    }

    @Test("property: writes of successive versions (edits, undo, redo) read back as the edited tree: JSON")
    func jsonChained() throws {
        try chained(DocumentPatchTests.json, .json, seed: 11)
        try chained("{\"Rows\":[{\"Title\":\"a\",\"Children\":[{\"Title\":\"b\"}]},{\"Title\":\"c\"}]}", .json, seed: 12)
    }

    @Test("property: writes of successive versions (edits, undo, redo) read back as the edited tree: YAML")
    func yamlChained() throws {
        try chained(DocumentPatchTests.yaml, .yaml, seed: 13)
    }
}
