import Testing
@testable import DrillDownCore

@Suite("TreePath and path resolution")
struct PathTests {
    @Test("TreePath parses the dotted form and rejects anything else")
    func parse() {
        #expect(TreePath("3.0.0") == [3, 0, 0])
        #expect(TreePath("") == .root)
        #expect(TreePath("3..0") == nil)
        #expect(TreePath("a") == nil)
        #expect(TreePath("-1") == nil)
        #expect(TreePath([3, 0, 0]).description == "3.0.0")
    }

    @Test("paths resolve by TreePath, by titles, and map back")
    func resolve() throws {
        let source = seedSource()
        let j = try source.resolve("3.0.0.0.0")
        #expect(source.title(of: j) == "Screen J")
        #expect(try source.resolve("Item 4/Screen G/Screen H/Screen I/Screen J") == j)
        #expect(try source.resolve("item 4/screen g") == source.node(at: [3, 0]))
        #expect(source.path(of: j) == [3, 0, 0, 0, 0])
        #expect(source.titlePath(of: j) == "Item 4/Screen G/Screen H/Screen I/Screen J")
        #expect(try source.resolve("/") == source.root)
    }

    @Test("a path that leaves the tree names what is missing")
    func errors() {
        let source = seedSource()
        #expect(throws: PathError.self) { try source.resolve("9") }
        do {
            _ = try source.resolve("3.5")
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("3 has 1 child"))
        }
        do {
            _ = try source.resolve("Item 4/Nope")
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "'Item 4' has no child titled 'Nope'")
        }
    }

    @Test("path(of:) and node(at:) are inverse on every node of random trees")
    func roundTrip() {
        var rng = SplitMix(state: 7)
        for _ in 0 ..< 30 {
            var budget = 200
            let source = DocumentSource(tree: randomDoc(&rng, budget: &budget).tree, mode: .generic)
            for i in 0 ..< source.capacity {
                let id = NodeID(i)
                #expect(source.node(at: source.path(of: id)) == id)
            }
        }
    }
}
