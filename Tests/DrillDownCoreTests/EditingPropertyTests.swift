import Testing
@testable import DrillDownCore

@Suite("Editing: random change sequences, undo and redo (property)")
struct EditingPropertyTests {
    /// Every node of the source below the root, with its path.
    func nodes(_ s: DocumentSource) -> [(NodeID, TreePath)] {
        var result: [(NodeID, TreePath)] = []
        var stack: [(NodeID, TreePath)] = [(s.root, .root)]
        while let (n, p) = stack.popLast() {
            result.append((n, p))
            for (i, c) in s.children(of: n).enumerated() { stack.append((c, p.appending(i))) }
        }
        return result
    }

    func randomScalar(_ rng: inout SplitMix) -> Scalar {
        switch Int.random(in: 0 ..< 4, using: &rng) {
        case 0: Scalar(.integer, String(Int.random(in: -5 ... 50, using: &rng)))
        case 1: Scalar(.bool, Bool.random(using: &rng) ? "true" : "false")
        case 2: Scalar(.real, "2.5")
        default: Scalar(.string, "s\(Int.random(in: 0 ..< 9, using: &rng))")
        }
    }

    /// A random change, valid or not.
    func randomChange(_ s: DocumentSource, _ rng: inout SplitMix) -> Change {
        let all = nodes(s)
        let (id, path) = all.randomElement(using: &rng)!
        let (_, other) = all.randomElement(using: &rng)!
        let title = Int.random(in: 0 ..< 12, using: &rng) == 0 ? "" : "t\(Int.random(in: 0 ..< 40, using: &rng))"
        let count = s.childCount(of: id)
        let index: Int? = Bool.random(using: &rng) ? nil : Int.random(in: 0 ... count + 1, using: &rng)
        let key = ["plays", "on", "x", "Title", "k1"].randomElement(using: &rng)!
        switch Int.random(in: 0 ..< 10, using: &rng) {
        case 0, 1:
            var node = NewNode(title: title)
            if Bool.random(using: &rng) { node.attributes = [Attribute(key: "plays", value: randomScalar(&rng))] }
            if case .generic = s.mode, node.attributes.isEmpty, Bool.random(using: &rng) { node.value = randomScalar(&rng) }
            return .insert(node, parent: path, index: index)
        case 2: return .updateTitle(path, title: title)
        case 3, 4: return .setAttribute(path, key: key, value: Int.random(in: 0 ..< 4, using: &rng) == 0 ? nil : randomScalar(&rng))
        case 5, 6: return .delete(path)
        case 7:
            let leaves = all.filter { !s.tree.kind(of: $0.0).isContainer }
            guard let leaf = leaves.randomElement(using: &rng) else { fallthrough }
            return .setValue(leaf.1, value: randomScalar(&rng))
        default: return .move(path, parent: Bool.random(using: &rng) ? path.parent : other, index: index)
        }
    }

    /// Checks what a successful change promised, against the tree before it.
    func checkEffect(_ change: Change, _ result: TreePath, before: DocumentSource, after: DocumentSource) {
        switch change {
        case .insert(let node, let parent, _):
            #expect(after.childCount(of: after.node(at: parent)!) == before.childCount(of: before.node(at: parent)!) + 1)
            let id = after.node(at: result)!
            if case .outline = after.mode { #expect(after.title(of: id) == node.title) }
        case .updateTitle(let path, let title):
            #expect(after.title(of: after.node(at: path)!) == title)
        case .setAttribute(let path, let key, let value):
            #expect(after.attribute(key, of: after.node(at: path)!) == value)
        case .setValue(let path, let value):
            #expect(after.tree.value(of: after.node(at: path)!) == value)
        case .delete(let path):
            let id = before.node(at: path)!
            let removed = before.tree.fragment(at: id).tree.count
            #expect(after.tree.count == before.tree.count - removed)
        case .move(let path, let parent, _):
            let moved = before.tree.fragment(at: before.node(at: path)!)
            let landed = after.tree.fragment(at: after.node(at: result)!)
            #expect(moved.tree.isStructurallyEqual(to: landed.tree))
            let createdList = before.childList(of: before.node(at: parent)!) == nil
            #expect(after.tree.count == before.tree.count + (createdList ? 1 : 0))
        }
    }

    func run(_ makeDoc: (inout SplitMix) -> DocumentSource, seed: UInt64, rounds: Int, steps: Int) {
        var rng = SplitMix(state: seed)
        var applied = 0, refused = 0
        for _ in 0 ..< rounds {
            let original = makeDoc(&rng)
            var doc = EditableDocument(source: original)
            var states = [original.tree]
            var cursor = 0
            for _ in 0 ..< steps {
                let roll = Int.random(in: 0 ..< 10, using: &rng)
                if roll == 0, cursor > 0 {
                    #expect(doc.undo() != nil)
                    cursor -= 1
                } else if roll == 1, cursor < states.count - 1 {
                    #expect(doc.redo() != nil)
                    cursor += 1
                } else {
                    let change = randomChange(doc.source, &rng)
                    let before = doc.source
                    do {
                        let result = try doc.apply(change)
                        checkEffect(change, result, before: before, after: doc.source)
                        states.removeSubrange((cursor + 1)...)
                        states.append(doc.tree)
                        cursor += 1
                        applied += 1
                    } catch {
                        #expect(doc.tree.isStructurallyEqual(to: before.tree), "a refused change left the tree changed: \(change)")
                        refused += 1
                    }
                }
                #expect(doc.tree.isStructurallyEqual(to: states[cursor]))
            }
            while doc.undo() != nil { cursor -= 1 }
            #expect(cursor == 0)
            #expect(doc.tree.isStructurallyEqual(to: original.tree), "undo of all did not restore the original")
            while doc.redo() != nil { cursor += 1 }
            #expect(doc.tree.isStructurallyEqual(to: states.last!), "redo of all did not reach the final state")
        }
        #expect(applied > rounds * steps / 4)
        #expect(refused > 0)
    }

    @Test("outline convention: any sequence of changes, then undo of all, gives back the original")
    func outlineUndoAll() {
        run({ rng in
            var budget = 40
            return DocumentSource(tree: randomOutlineDoc(&rng, budget: &budget).tree)
        }, seed: 7, rounds: 30, steps: 50)
    }

    @Test("generic mode: any sequence of changes, then undo of all, gives back the original")
    func genericUndoAll() {
        run({ rng in
            var budget = 50
            return DocumentSource(tree: randomDoc(&rng, budget: &budget).tree, mode: .generic)
        }, seed: 11, rounds: 30, steps: 50)
    }

    @Test("the outline's row ⇄ TreePath mapping stays exact on the tree after each change")
    func outlineMappingAfterChanges() {
        var rng = SplitMix(state: 3)
        for _ in 0 ..< 15 {
            var budget = 50
            var doc = EditableDocument(source: DocumentSource(tree: randomOutlineDoc(&rng, budget: &budget).tree))
            for _ in 0 ..< 25 {
                _ = try? doc.apply(randomChange(doc.source, &rng))
                let source = doc.source
                var outline = Outline(source: source)
                for (id, _) in nodes(source) where Bool.random(using: &rng) { outline.expand(id) }
                var expected: [NodeID] = []
                func walk(_ n: NodeID) {
                    for c in source.children(of: n) {
                        expected.append(c)
                        if outline.isExpanded(c) { walk(c) }
                    }
                }
                walk(source.root)
                #expect(outline.visibleCount == expected.count)
                for (row, id) in expected.enumerated() {
                    #expect(outline.node(atRow: row) == id)
                    #expect(outline.row(of: id) == row)
                }
            }
        }
    }
}
