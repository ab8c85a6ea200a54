import Testing
@testable import DrillDownCore

@Suite("Changed subtrees: what differs between two versions of a document, without comparing them")
struct ChangedSubtreesTests {
    /// Whether the subtrees at `a` of `x` and `b` of `y` hold the same document.
    func sameSubtree(_ x: TreeStore, _ a: NodeID, _ y: TreeStore, _ b: NodeID) -> Bool {
        var stack = [(a, b)]
        while let (m, n) = stack.popLast() {
            let k = x.kind(of: m)
            guard k == y.kind(of: n), x.keyBytes(of: m) == y.keyBytes(of: n) else { return false }
            if k.isContainer {
                let cm = x.children(of: m), cn = y.children(of: n)
                guard cm.count == cn.count else { return false }
                for i in 0 ..< cm.count { stack.append((cm[i], cn[i])) }
            } else if x.valueBytes(of: m) != y.valueBytes(of: n) {
                return false
            }
        }
        return true
    }

    /// Every node reachable from the root of `tree`.
    func attached(_ tree: TreeStore) -> Set<NodeID> {
        var all = Set<NodeID>()
        var stack = [tree.root]
        while let n = stack.popLast() {
            all.insert(n)
            stack.append(contentsOf: tree.children(of: n))
        }
        return all
    }

    @Test("property: any node outside the set is the same subtree in both versions (edits, undo, redo, branches)")
    func outsideTheSetNothingDiffers() {
        var rng = SplitMix(state: 31)
        let helper = EditingPropertyTests()
        var budget = 150
        let original = DocumentSource(tree: randomOutlineDoc(&rng, budget: &budget).tree)
        var doc = EditableDocument(source: original)
        doc.historyLimit = .max
        var versions: [TreeStore] = [original.tree]
        for _ in 0 ..< 600 {
            switch Int.random(in: 0 ..< 10, using: &rng) {
            case 0: doc.undo()
            case 1: doc.redo()
            default: _ = try? doc.apply(helper.randomChange(doc.source, &rng))
            }
            versions.append(doc.tree)
        }
        var compared = 0
        for _ in 0 ..< 300 {
            let old = versions.randomElement(using: &rng)!, new = versions.randomElement(using: &rng)!
            guard let changed = new.changedSubtrees(since: old) else {
                Issue.record("two versions of one document were not recognized as such")
                return
            }
            let inOld = attached(old)
            for n in attached(new) where inOld.contains(n) && !changed.contains(n) {
                #expect(sameSubtree(old, n, new, n), "node \(n) is outside the changed set but differs")
                compared += 1
            }
            if new.isStructurallyEqual(to: old) == false { #expect(changed.contains(new.root)) }
        }
        #expect(compared > 1000)
    }

    @Test("one rename of a large tree changes a set of the size of its depth; other bases are unknown")
    func smallForOneRename() throws {
        var doc = EditableDocument(source: DocumentSource(tree: outline(groups: 200, rows: 200)))
        let before = doc.tree
        try doc.apply(.updateTitle([100, 5], title: "Renamed"))
        let changed = try #require(doc.tree.changedSubtrees(since: before))
        #expect(changed.count <= 8, "\(changed.count) nodes for one rename")
        #expect(changed.contains(doc.tree.root))
        #expect(doc.tree.changedSubtrees(since: doc.tree) == [])
        #expect(doc.tree.changedSubtrees(since: outline(groups: 200, rows: 200)) == nil)
    }

    @Test("the log is cut every segment: versions across a cut are unknown, within one known")
    func logCuts() throws {
        var doc = EditableDocument(source: DocumentSource(tree: outline(groups: 4, rows: 4)))
        doc.historyLimit = 4
        let start = doc.tree
        var last = start
        for i in 0 ..< OverlayLog.segment + 2 {
            last = doc.tree
            try doc.apply(.updateTitle([1, 1], title: "r\(i)"))
        }
        #expect(doc.tree.changedSubtrees(since: start) == nil)
        #expect(doc.tree.changedSubtrees(since: last) != nil)
    }

    /// An outline document of `groups` × `rows` rows, like Scripts/gen-outline.py makes.
    func outline(groups: Int, rows: Int) -> TreeStore {
        Doc.object([("Rows", .array((0 ..< groups).map { g in
            .object([("Title", .string("Group \(g)")), ("Children", .array((0 ..< rows).map { r in
                .object([("Title", .string("Row \(g).\(r)")), ("value", .int(g * rows + r))])
            }))])
        }))]).tree
    }
}
