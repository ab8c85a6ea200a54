import Testing
@testable import DrillDownCore

@Suite("Tree overlay: edits in place of replays")
struct OverlayTests {
    /// Every answer a front end asks of a source, node by node in document order, as text.
    func answers(_ s: DocumentSource) -> [String] {
        var lines: [String] = []
        var stack = [s.root]
        while let n = stack.popLast() {
            let attributes = s.attributes(of: n).map { "\($0.key)=\($0.value.text)" }.joined(separator: ",")
            lines.append("\(s.path(of: n)) '\(s.titlePath(of: n))' \(s.value(of: n)?.text ?? "-") [\(attributes)] \(s.childCount(of: n))")
            #expect(s.node(at: s.path(of: n)) == n)
            stack.append(contentsOf: s.children(of: n).reversed())
        }
        for q in ["t1", "s", "r", "leaf 1", "k"] {
            let found = s.find(SearchQuery(q, includeValues: true, limit: 1000))
            lines.append("search \(q): \(found.total) " + found.hits.map { s.path(of: $0).description }.joined(separator: " "))
        }
        var outline = Outline(source: s)
        outline.expandAll()
        lines.append("rows \(outline.visibleCount)")
        for r in 0 ..< outline.visibleCount {
            guard let id = outline.node(atRow: r) else {
                lines.append("row \(r) missing")
                continue
            }
            #expect(outline.row(of: id) == r)
            lines.append("row \(r): \(s.path(of: id))")
        }
        return lines
    }

    func check(_ makeDoc: (inout SplitMix) -> DocumentSource, seed: UInt64, steps: Int) {
        var rng = SplitMix(state: seed)
        let helper = EditingPropertyTests()
        let original = makeDoc(&rng)
        var doc = EditableDocument(source: original)
        doc.historyLimit = .max
        var applied = 0
        for step in 0 ..< steps {
            if (try? doc.apply(helper.randomChange(doc.source, &rng))) != nil { applied += 1 }
            guard step % 50 == 49 || step == steps - 1 else { continue }
            let rebuilt = doc.tree.compacted()
            #expect(rebuilt.isDense && rebuilt.count == doc.tree.count)
            #expect(doc.tree.isStructurallyEqual(to: rebuilt))
            let fresh = DocumentSource(tree: rebuilt, mode: doc.mode)
            let a = answers(doc.source), b = answers(fresh)
            #expect(a == b, "step \(step): the edited tree reads differently from a fresh rebuild")
            if a != b { return }
        }
        #expect(applied > steps / 4)
        let final = doc.tree
        var undone = 0
        while doc.undo() != nil { undone += 1 }
        #expect(doc.tree.isStructurallyEqual(to: original.tree), "undo of all did not restore the original")
        #expect(answers(doc.source) == answers(original))
        while doc.redo() != nil { undone -= 1 }
        #expect(undone == 0)
        #expect(doc.tree.isStructurallyEqual(to: final), "redo of all did not reach the final state")
    }

    @Test("outline convention: thousands of random changes read exactly like a fresh rebuild; undo/redo all are exact")
    func outlineMatchesRebuild() {
        check({ rng in
            var budget = 120
            return DocumentSource(tree: randomOutlineDoc(&rng, budget: &budget).tree)
        }, seed: 21, steps: 2500)
    }

    @Test("generic mode: thousands of random changes read exactly like a fresh rebuild; undo/redo all are exact")
    func genericMatchesRebuild() {
        check({ rng in
            var budget = 150
            return DocumentSource(tree: randomDoc(&rng, budget: &budget).tree, mode: .generic)
        }, seed: 22, steps: 2500)
    }

    /// A generic document of `records` records like Scripts/gen-json.py makes (14 nodes each).
    func records(_ records: Int) -> TreeStore {
        var items: [Doc] = []
        for i in 0 ..< records {
            items.append(.object([
                ("identifier", .int(i)), ("displayName", .string("User \(i)")), ("isActive", .bool(i % 3 == 0)),
                ("lastScore", .int(i % 100)), ("description", .null), ("tags", .array([.string("a"), .string("b"), .string("c")])),
                ("address", .object([("cityName", .string("Lyon")), ("postalCode", .string("\(i)")), ("street", .string("x"))])),
            ]))
        }
        return Doc.array(items).tree
    }

    @Test("a change writes the same few records whatever the size of the tree")
    func costDoesNotGrowWithSize() throws {
        var written: [[Int]] = []
        for size in [100, 20_000] {
            var doc = EditableDocument(tree: records(size), mode: .generic)
            let middle = size / 2
            let changes: [Change] = [
                .updateTitle([middle, 1], title: "name"),
                .setAttribute([middle], key: "plays", value: Scalar(.integer, "3")),
                .insert(NewNode(title: "n", value: Scalar(.integer, "1")), parent: [middle, 5], index: 1),
                .delete([middle + 1]),
                .move([middle, 6], parent: [middle - 1, 5], index: nil),
                .move([middle + 2], parent: [], index: 3),
            ]
            var counts: [Int] = []
            for change in changes {
                let before = doc.tree.overlay?.records.count ?? 0
                try doc.apply(change)
                counts.append((doc.tree.overlay?.records.count ?? 0) - before)
            }
            #expect(doc.tree.count == size * 14 + 1 + 1 + 1 - 14)  // root, insert, the new attribute, delete
            // Undo and redo keep trees: no record is written at all.
            let after = doc.tree.overlay?.records.count
            doc.undo()
            doc.redo()
            #expect(doc.tree.overlay?.records.count == after)
            written.append(counts)
        }
        #expect(written[0] == written[1], "records written per change depend on the tree's size: \(written)")
        #expect(written[1].allSatisfy { $0 <= 3 }, "\(written[1])")
    }

    @Test("a level changed by edits is runs of ids: indexing and positions agree with the ids")
    func runsIndexAndPosition() {
        var range = NodeRange(10, 20)
        var model = Array(Int32(10) ..< 20)
        var rng = SplitMix(state: 5)
        var next: Int32 = 100
        for _ in 0 ..< 400 {
            let lo = Int.random(in: 0 ... model.count, using: &rng)
            let hi = min(model.count, lo + Int.random(in: 0 ... 2, using: &rng))
            var ids: [Int32] = []
            if Bool.random(using: &rng) {
                ids = [next]
                next += 1
            }
            if hi > lo, Bool.random(using: &rng) { ids.append(model[lo]) }
            range = range.replacing(lo ..< hi, with: ids)
            model.replaceSubrange(lo ..< hi, with: ids)
            #expect(range.map(\.rawValue) == model)
            #expect(range.count == model.count)
            for (i, id) in model.enumerated() {
                #expect(range[i].rawValue == id)
                #expect(range.position(of: NodeID(id)) == i)
            }
            #expect(range.position(of: NodeID(Int32(99))) == nil)
        }
    }
}
