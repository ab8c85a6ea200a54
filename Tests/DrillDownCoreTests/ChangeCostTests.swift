import Testing
@testable import DrillDownCore

@Suite("A change costs what it touches: no walk of what it removes or moves, no copy of the history")
struct ChangeCostTests {
    /// An outline document of `groups` × `rows` rows.
    func outline(groups: Int, rows: Int) -> DocumentSource {
        DocumentSource(tree: Doc.object([("Rows", .array((0 ..< groups).map { g in
            .object([("Title", .string("Group \(g)")), ("Children", .array((0 ..< rows).map { r in
                .object([("Title", .string("Row \(g).\(r)")), ("value", .int(g * rows + r))])
            }))])
        }))]).tree)
    }

    @Test("deleting a large subtree leaves it uncounted; the count is still exact when asked")
    func deleteDoesNotWalk() throws {
        var doc = EditableDocument(source: outline(groups: 6, rows: 500))
        let before = doc.tree.count
        try doc.apply(.delete([2]))
        #expect(doc.tree.overlay?.unsized.count == 1, "the removed group was walked to count it")
        #expect(doc.tree.count == before - 3 - 3 * 500)
        #expect(doc.tree.count == doc.tree.compacted().count)
        // The next change starts from the count found, with nothing left uncounted.
        try doc.apply(.updateTitle([0], title: "First"))
        #expect(doc.tree.overlay?.unsized.isEmpty == true)
        #expect(doc.tree.count == before - 3 - 3 * 500)
        // A small subtree is counted at once.
        try doc.apply(.delete([0, 3]))
        #expect(doc.tree.overlay?.unsized.isEmpty == true)
        #expect(doc.tree.count == before - 3 - 3 * 500 - 3)
    }

    @Test("moving a large subtree counts nothing: the removal and the insert cancel")
    func moveDoesNotWalk() throws {
        var doc = EditableDocument(source: outline(groups: 6, rows: 500))
        let before = doc.tree.count
        try doc.apply(.move([1], parent: [4], index: 0))
        #expect(doc.tree.overlay?.unsized.isEmpty == true)
        #expect(doc.tree.overlay?.countCache == nil, "the count is known without a walk")
        #expect(doc.tree.count == before)
        #expect(doc.tree.compacted().count == before)
    }

    @Test("moving a subtree under a row without children relinks it into the new list: same ids, nothing copied")
    func moveIntoLeafRowRelinks() throws {
        var doc = EditableDocument(source: outline(groups: 6, rows: 500))
        let group = try #require(doc.source.node(at: [1]))
        let before = doc.tree.count
        let original = doc.tree
        let path = try doc.apply(.move([1], parent: [4, 0], index: nil))
        #expect(path == [3, 0, 0])
        #expect(doc.source.node(at: path) == group, "the same node, relinked, not a copy")
        #expect((doc.tree.overlay?.records.count ?? 0) < 10, "only the touched records are written, not the 1,503 moved nodes")
        #expect(doc.tree.count == before + 1, "the one new node is the row's Children list")
        #expect(doc.tree.compacted().count == before + 1)
        #expect(doc.source.children(of: group).count == 500)
        doc.undo()
        #expect(doc.tree.isStructurallyEqual(to: original))
        doc.redo()
        #expect(doc.source.node(at: [3, 0, 0]) == group)
    }

    @Test("the steps the undo ring drops and the redo steps a change clears are freed (on the reclaimer's thread)")
    func droppedStepsAreFreed() throws {
        var doc = EditableDocument(source: outline(groups: 2, rows: 2))
        doc.historyLimit = 2
        try doc.apply(.updateTitle([0], title: "first"))
        weak var first = doc.tree.overlay
        #expect(first != nil)
        for i in 0 ..< Reclaimer.batch + 3 { try doc.apply(.updateTitle([0], title: "t\(i)")) }
        Reclaimer.shared.drain()
        #expect(first == nil, "a step the ring dropped still holds its tree")
        #expect(doc.undoCount == 2)

        try doc.apply(.updateTitle([1], title: "undone"))
        weak var undone = doc.tree.overlay
        doc.undo()
        #expect(undone != nil, "the undone step is kept for redo")
        try doc.apply(.updateTitle([1], title: "instead"))
        Reclaimer.shared.drain()
        #expect(undone == nil, "the redo step a new change cleared still holds its tree")
        #expect(doc.source.title(of: doc.source.node(at: [1])!) == "instead")
    }

    @Test("the undo history is a ring: it keeps the newest steps up to the limit, in order")
    func historyRing() throws {
        var ring = StepHistory<Int>(limit: 3)
        for i in 1 ... 5 { ring.append(i) }
        #expect(ring.elements == [3, 4, 5])
        #expect(ring.popLast() == 5)
        ring.append(6)
        ring.append(7)
        #expect(ring.elements == [4, 6, 7])
        ring.limit = 2
        #expect(ring.elements == [6, 7])
        ring.limit = 4
        ring.append(8)
        ring.append(9)
        #expect(ring.elements == [6, 7, 8, 9])
        while ring.popLast() != nil {}
        #expect(ring.isEmpty && ring.elements.isEmpty)

        var doc = EditableDocument(source: outline(groups: 2, rows: 2))
        doc.historyLimit = 3
        for i in 0 ..< 5 { try doc.apply(.updateTitle([0], title: "t\(i)")) }
        #expect(doc.undoHistory.map { $0.changes } == (2 ..< 5).map { [.updateTitle([0], title: "t\($0)")] })
        var undone = 0
        while doc.undo() != nil { undone += 1 }
        #expect(undone == 3)
        #expect(doc.source.title(of: doc.source.node(at: [0])!) == "t1")
    }
}
