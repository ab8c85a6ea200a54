import Testing
@testable import DrillDownCore

/// A title tree, to compare documents with what a selection edit should make of them.
private struct Node: Equatable {
    var title: String
    var kids: [Node] = []
}

private func outline(_ doc: EditableDocument) -> [Node] {
    let s = doc.source
    func kids(_ id: NodeID) -> [Node] { s.children(of: id).map { Node(title: s.title(of: $0), kids: kids($0)) } }
    return kids(s.root)
}

private func document(_ nodes: [Node]) -> EditableDocument {
    func doc(_ n: Node) -> Doc { row(n.title, n.kids.map(doc)) }
    return EditableDocument(source: DocumentSource(tree: Doc.object([("Rows", .array(nodes.map(doc)))]).tree))
}

private func titles(_ nodes: [Node]) -> String {
    nodes.map { $0.kids.isEmpty ? $0.title : "\($0.title)(\(titles($0.kids)))" }.joined(separator: " ")
}

/// A(a0 a1 a2 a3) B(b0 b1) C D(d0(e0 e1))
private let sample: [Node] = [
    Node(title: "A", kids: ["a0", "a1", "a2", "a3"].map { Node(title: $0) }),
    Node(title: "B", kids: [Node(title: "b0"), Node(title: "b1")]),
    Node(title: "C"),
    Node(title: "D", kids: [Node(title: "d0", kids: [Node(title: "e0"), Node(title: "e1")])]),
]

private func run(_ edit: SelectionEdit, on nodes: [Node] = sample) throws -> String {
    var doc = document(nodes)
    try doc.apply(try edit.changes())
    return titles(outline(doc))
}

@Suite("Selection edits: several nodes as one step, paths translated")
struct SelectionEditTests {
    @Test("deleting non-adjacent rows across levels deletes those rows, not their neighbours")
    func delete() throws {
        #expect(try run(.delete([[0, 1], [0, 3], [2], [3, 0, 1]])) == "A(a0 a2) B(b0 b1) D(d0(e0))")
        // A node inside a selected node goes with it.
        #expect(try run(.delete([[1, 0], [1], [0, 0]])) == "A(a1 a2 a3) C D(d0(e0 e1))")
    }

    @Test("moving a selection keeps document order, at the index counted after the rows left")
    func move() throws {
        #expect(try run(.move([[0, 1], [0, 3], [2]], parent: [1], index: 1)) == "A(a0 a2) B(b0 a1 a3 C b1) D(d0(e0 e1))")
        #expect(try run(.move([[0, 1], [0, 3]], parent: [0], index: 0)) == "A(a1 a3 a0 a2) B(b0 b1) C D(d0(e0 e1))")
        #expect(try run(.move([[0, 0], [0, 2]], parent: [0], index: 2)) == "A(a1 a3 a0 a2) B(b0 b1) C D(d0(e0 e1))")
        #expect(try run(.move([[3, 0, 1], [0, 2], [1]], parent: .root, index: nil)) == "A(a0 a1 a3) C D(d0(e0)) a2 B(b0 b1) e1")
        #expect(try run(.move([[2], [0]], parent: [3, 0], index: 1)) == "B(b0 b1) D(d0(e0 A(a0 a1 a2 a3) C e1))")
    }

    @Test("moving a selection into one of its rows is refused")
    func moveIntoItself() {
        #expect(throws: EditError.self) { try SelectionEdit.move([[0], [2]], parent: [0, 1], index: nil).changes() }
    }

    @Test("indent moves each row under the nearest unselected row above it; outdent puts rows after their parent")
    func indentAndOutdent() throws {
        #expect(try run(.indent([[0, 2], [0, 3], [2]])) == "A(a0 a1(a2 a3)) B(b0 b1 C) D(d0(e0 e1))")
        #expect(try run(.indent([[0, 0], [0, 1], [1, 1]])) == "A(a0 a1 a2 a3) B(b0(b1)) C D(d0(e0 e1))")
        #expect(throws: EditError.self) { try SelectionEdit.indent([[0], [0, 0]]).changes() }
        #expect(try run(.outdent([[0, 1], [0, 3], [3, 0, 1]])) == "A(a0 a2) a1 a3 B(b0 b1) C D(d0(e0) e1)")
        #expect(try run(.outdent([[3, 0, 0], [3, 0]])) == "A(a0 a1 a2 a3) B(b0 b1) C D d0(e0 e1)")
        #expect(throws: EditError.self) { try SelectionEdit.outdent([[1]]).changes() }
    }

    @Test("final paths follow each change's node through the changes after it")
    func finalPaths() throws {
        var doc = document(sample)
        let changes: [Change] = [
            .insert(NewNode(title: "X"), parent: .root, index: 0),
            .insert(NewNode(title: "Y"), parent: .root, index: 0),
        ] + (try SelectionEdit.move([[2, 1], [5, 0]], parent: [3], index: 0).changes())
        let results = try doc.apply(changes)
        let final = SelectionEdit.finalPaths(of: changes, results: results)
        let s = doc.source
        #expect(final.map { s.node(at: $0).map { s.title(of: $0) } ?? "\($0)" } == ["X", "Y", "a1", "d0"], "\(results) \(changes)")
        #expect(titles(outline(doc)) == "Y X A(a0 a2 a3) B(a1 d0(e0 e1) b0 b1) C D")
    }

    @Test("a selection edit is one undoable step of the model")
    func oneStep() async throws {
        let model = DocumentModel(document: document(sample))
        try await model.apply(try SelectionEdit.delete([[0, 0], [1], [3, 0, 0]]).changes())
        #expect(titles(outline(await model.document!)) == "A(a1 a2 a3) C D(d0(e1))")
        try await model.undo()
        #expect(titles(outline(await model.document!)) == titles(sample))
    }

    @Test("random selections move and delete as a model by identity says", arguments: 0 ..< 40)
    func randomSelections(seed: Int) throws {
        var rng = SplitMix(state: UInt64(seed))
        var counter = 0
        func grow(_ depth: Int) -> [Node] {
            (0 ..< Int.random(in: 0 ... 4, using: &rng)).map { _ in
                counter += 1
                let title = "n\(counter)"
                return Node(title: title, kids: depth < 3 ? grow(depth + 1) : [])
            }
        }
        var nodes = grow(0)
        if nodes.isEmpty { nodes = [Node(title: "only")] }
        var all: [(TreePath, String)] = []
        func walk(_ ns: [Node], _ at: TreePath) {
            for (i, n) in ns.enumerated() { all.append((at.appending(i), n.title)); walk(n.kids, at.appending(i)) }
        }
        walk(nodes, .root)
        let picked = all.filter { _ in Int.random(in: 0 ..< 4, using: &rng) == 0 }
        guard !picked.isEmpty else { return }
        let chosen = Set(picked.map(\.1))

        // Delete: every chosen title (and what is under it) is gone, the rest stays in order.
        func without(_ ns: [Node]) -> [Node] {
            ns.filter { !chosen.contains($0.title) }.map { Node(title: $0.title, kids: without($0.kids)) }
        }
        #expect(try run(.delete(picked.map(\.0)), on: nodes) == titles(without(nodes)))

        // Move under a random node that is not chosen nor under a chosen one, at a random index.
        func outside(_ ns: [Node], _ at: TreePath) -> [(TreePath, String)] {
            ns.enumerated().flatMap { i, n in chosen.contains(n.title) ? [] : [(at.appending(i), n.title)] + outside(n.kids, at.appending(i)) }
        }
        let targets = [(TreePath.root, "")] + outside(nodes, .root)
        let (parent, parentTitle) = targets[Int.random(in: 0 ..< targets.count, using: &rng)]
        var topChosen: [Node] = []
        func collect(_ ns: [Node]) { for n in ns { if chosen.contains(n.title) { topChosen.append(n) } else { collect(n.kids) } } }
        collect(nodes)
        var rest = without(nodes)
        func place(_ ns: inout [Node], _ index: Int?) -> Bool {
            if parentTitle.isEmpty { ns.insert(contentsOf: topChosen, at: min(index ?? ns.count, ns.count)); return true }
            for k in ns.indices {
                if ns[k].title == parentTitle {
                    ns[k].kids.insert(contentsOf: topChosen, at: min(index ?? ns[k].kids.count, ns[k].kids.count))
                    return true
                }
                if place(&ns[k].kids, index) { return true }
            }
            return false
        }
        // The parent's children once the chosen ones left, to pick a valid index.
        var remaining = rest
        var count = 0
        func size(_ ns: [Node]) -> Bool {
            if parentTitle.isEmpty { count = ns.count; return true }
            for n in ns { if n.title == parentTitle { count = n.kids.count; return true }; if size(n.kids) { return true } }
            return false
        }
        _ = size(remaining)
        let index: Int? = Bool.random(using: &rng) ? nil : Int.random(in: 0 ... count, using: &rng)
        #expect(place(&rest, index))
        remaining = rest
        #expect(try run(.move(picked.map(\.0), parent: parent, index: index), on: nodes) == titles(remaining), "seed \(seed)")
    }
}
