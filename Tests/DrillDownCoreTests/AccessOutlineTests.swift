import Foundation
import Testing
@testable import DrillDownCore

/// Rock (0) > [Queen (0.0) > [Bohemian (0.0.0)], Muse (0.1)]; Jazz (1) > [Miles (1.0), Trane (1.1)]; Pop (2) > [Abba (2.0)].
private func library() -> DocumentSource {
    let doc: Doc = .object([("Rows", .array([
        row("Rock", [row("Queen", [row("Bohemian")]), row("Muse")]),
        row("Jazz", [row("Miles"), row("Trane")]),
        row("Pop", [row("Abba")]),
    ]))])
    return DocumentSource(tree: doc.tree)
}

private func presenter(_ grants: [Grant], base: Role = .viewer) -> Presenter {
    let source = library()
    var presenter = Presenter(source: source)
    presenter.access = AccessPolicy(roles: ["ana": base], grants: grants).view(for: "ana", in: source)
    return presenter
}

private func titles(_ outline: Outline, _ presenter: Presenter) -> [String] {
    (0 ..< outline.visibleCount).compactMap { outline.node(atRow: $0) }.map { presenter.row(for: $0).title }
}

@Suite("Rows hidden from a reader")
struct AccessOutlineTests {
    @Test("the outline leaves hidden rows out: collapsed, expanded one by one, and expanded all")
    func outline() {
        let p = presenter([Grant(user: "ana", path: "Jazz", role: .none)])
        var outline = Outline(presenter: p)
        #expect(titles(outline, p) == ["Rock", "Pop"])
        outline.expand(p.source.node(at: [1])!)      // the hidden row: nothing happens
        outline.expand(p.source.node(at: [2])!)
        #expect(titles(outline, p) == ["Rock", "Pop", "Abba"])
        #expect(outline.row(of: p.source.node(at: [2, 0])!) == 2)
        #expect(outline.row(of: p.source.node(at: [1])!) == nil)
        outline.expandAll()
        #expect(titles(outline, p) == ["Rock", "Queen", "Bohemian", "Muse", "Pop", "Abba"])
        #expect(outline.visibleCount == 6)
        outline.collapseAll()
        #expect(titles(outline, p) == ["Rock", "Pop"])
    }

    @Test("a row's child count, positions and children count only what the reader sees")
    func counts() {
        let p = presenter([Grant(user: "ana", path: "Rock/Queen", role: .none)])
        let rock = p.source.node(at: [0])!
        #expect(p.rows(of: p.source.root).map(\.childCount) == [1, 2, 1])
        #expect(p.rowCount(of: rock) == 1)
        #expect(p.child(of: rock, at: 0) == p.source.node(at: [0, 1]))
        #expect(p.child(of: rock, at: 1) == nil)
        #expect(p.displayPosition(of: p.source.node(at: [0, 1])!) == 0)
        #expect(p.displayPosition(ofIndex: 1, in: rock) == 0)
    }

    @Test("a user with no role above a granted subtree sees the way to it and the subtree only")
    func wayToAGrant() {
        let p = presenter([Grant(user: "ana", path: "Jazz/Trane", role: .viewer)], base: .none)
        var outline = Outline(presenter: p)
        outline.expandAll()
        #expect(titles(outline, p) == ["Jazz", "Trane"])
        #expect(p.rows(of: p.source.root).map(\.childCount) == [1])
    }

    @Test("events about hidden rows only are not seen; mixed ones lose the hidden paths and the titles")
    func events() {
        let p = presenter([Grant(user: "ana", path: "Jazz", role: .none)])
        let view = p.access!
        func event(_ paths: [TreePath]) -> ChangeEvent {
            ChangeEvent(revision: 3, origin: .apply, changes: [], paths: paths, summary: "Rename of Miles to Miles Davis",
                        history: HistoryState(canUndo: true, undo: "Rename of Miles to Miles Davis"), source: p.source)
        }
        #expect(view.sees(event([[1, 0]])) == nil)
        let mixed = view.sees(event([[1, 0], [2, 0]]))
        #expect(mixed?.paths == [[2, 0]])
        #expect(mixed?.summary == "1 row changed")
        #expect(mixed?.history.undo == nil && mixed?.history.canUndo == true)
        #expect(view.sees(event([])) != nil)
    }

    @Test("a path to a hidden row is answered as a path to nothing")
    func paths() throws {
        let p = presenter([Grant(user: "ana", path: "Jazz", role: .none)])
        let view = p.access!
        #expect(try view.resolve("Pop/Abba", in: p.source) == p.source.node(at: [2, 0]))
        let hidden = #expect(throws: PathError.self) { try view.resolve("Jazz/Miles", in: p.source) }
        let missing = #expect(throws: PathError.self) { try view.resolve("Jazz/Nobody", in: p.source) }
        #expect(hidden?.message.replacingOccurrences(of: "Miles", with: "X") == missing?.message.replacingOccurrences(of: "Nobody", with: "X"))
        #expect(throws: PathError.self) { try view.resolve("1.0", in: p.source) }
    }
}
