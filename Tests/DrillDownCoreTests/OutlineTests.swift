import Testing
@testable import DrillDownCore

@Suite("Outline: expanded state and the row ⇄ TreePath mapping")
struct OutlineTests {
    /// The visible rows computed the slow, obvious way.
    func naiveRows(_ outline: Outline) -> [NodeID] {
        let source = outline.source
        var rows: [NodeID] = []
        func walk(_ n: NodeID) {
            for c in source.children(of: n) {
                rows.append(c)
                if outline.isExpanded(c) { walk(c) }
            }
        }
        walk(source.root)
        return rows
    }

    func checkExact(_ outline: Outline) {
        let expected = naiveRows(outline)
        #expect(outline.visibleCount == expected.count)
        for (i, id) in expected.enumerated() {
            #expect(outline.node(atRow: i) == id)
            #expect(outline.row(of: id) == i)
        }
        #expect(outline.node(atRow: expected.count) == nil)
        let visible = Set(expected)
        var all: [NodeID] = []
        var stack = Array(outline.source.children(of: outline.source.root))
        while let n = stack.popLast() {
            all.append(n)
            stack.append(contentsOf: outline.source.children(of: n))
        }
        for id in all where !visible.contains(id) {
            #expect(outline.row(of: id) == nil)
        }
    }

    @Test("expanding 1 then 1.0 shows rows in document order with depth")
    func expandInOrder() throws {
        let source = seedSource()
        var outline = Outline(source: source)
        outline.expand(source.node(at: [1])!)
        outline.expand(source.node(at: [1, 0])!)
        let rows = (0 ..< outline.visibleCount).map { outline.entry(atRow: $0)! }
        #expect(rows.map { source.title(of: $0.id) } == ["Item 1", "Item 2", "Screen B", "Screen C", "Item 3", "Item 4"])
        #expect(rows.map(\.depth) == [1, 1, 2, 3, 1, 1])
    }

    @Test("a collapsed ancestor hides its expanded descendants and restores them when reopened")
    func collapseRestores() {
        let source = seedSource()
        var outline = Outline(source: source)
        for p: TreePath in [[3], [3, 0], [3, 0, 0]] { outline.expand(source.node(at: p)!) }
        #expect(outline.visibleCount == 7)
        outline.collapse(source.node(at: [3])!)
        #expect(outline.visibleCount == 4)
        #expect(outline.isExpanded(source.node(at: [3, 0])!))
        #expect(outline.row(of: source.node(at: [3, 0])!) == nil)
        outline.expand(source.node(at: [3])!)
        #expect(outline.visibleCount == 7)
        checkExact(outline)
    }

    @Test("expand all shows every node; collapse all shows the first level")
    func expandAll() {
        let source = seedSource()
        var outline = Outline(source: source)
        outline.expandAll()
        #expect(outline.visibleCount == 14)
        checkExact(outline)
        outline.collapseAll()
        #expect(outline.visibleCount == 4)
        checkExact(outline)
    }

    @Test("reveal expands every ancestor of a node")
    func reveal() {
        let source = seedSource()
        var outline = Outline(source: source)
        let j = source.node(at: [3, 0, 0, 0, 0])!
        outline.reveal(j)
        #expect(outline.row(of: j) == 7)
        checkExact(outline)
    }

    @Test("the mapping is exact after any random sequence of operations (property)")
    func randomOperations() {
        var rng = SplitMix(state: 42)
        for round in 0 ..< 40 {
            var budget = 60 + round * 5
            let source = DocumentSource(tree: randomDoc(&rng, budget: &budget).tree, mode: .generic)
            var outline = Outline(source: source)
            let containers = (0 ..< source.capacity).map { NodeID($0) }.filter { source.childCount(of: $0) > 0 }
            guard !containers.isEmpty else { continue }
            for step in 0 ..< 60 {
                let id = containers.randomElement(using: &rng)!
                randomOperation(on: &outline, id, &rng)
                if step % 6 == 5 { checkExact(outline) }
            }
            checkExact(outline)
        }
    }

    @Test("the outline works over the outline convention's rows too")
    func conventionRows() {
        let source = seedSource()
        var outline = Outline(source: source)
        outline.expandAll()
        let titles = (0 ..< outline.visibleCount).map { source.title(of: outline.node(atRow: $0)!) }
        #expect(titles.prefix(5) == ["Item 1", "Screen A", "Item 2", "Screen B", "Screen C"])
        #expect(titles.last == "Screen J")
    }
}
