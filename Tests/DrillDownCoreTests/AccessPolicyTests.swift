import Testing
@testable import DrillDownCore

/// Rock (0) > [Queen (0.0) > [Bohemian (0.0.0)], Muse (0.1)]; Jazz (1) > [Miles (1.0)]; Pop (2).
private func library() -> DocumentSource {
    let doc: Doc = .object([("Rows", .array([
        row("Rock", [row("Queen", [row("Bohemian")]), row("Muse")]),
        row("Jazz", [row("Miles")]),
        row("Pop"),
    ]))])
    return DocumentSource(tree: doc.tree)
}

@Suite("Access policy")
struct AccessPolicyTests {
    @Test("roles are ordered: viewer reads, editor and admin change, none sees nothing")
    func roles() throws {
        #expect(Role.none < .viewer && Role.viewer < .editor && Role.editor < .admin)
        #expect(!Role.none.mayRead && Role.viewer.mayRead && !Role.viewer.mayChange && Role.editor.mayChange)
        #expect(try Role(named: "Editor") == .editor)
        #expect(throws: AccessError.self) { try Role(named: "owner") }
    }

    @Test("the closest grant wins, by title path or TreePath")
    func closestGrant() {
        let source = library()
        let policy = AccessPolicy(roles: ["ana": .viewer], grants: [
            Grant(user: "ana", path: "Rock", role: .editor),
            Grant(user: "ana", path: "0.0", role: .viewer),
            Grant(user: "bob", path: "Jazz", role: .admin),
        ])
        let ana = policy.view(for: "ana", in: source)
        #expect(ana.role(at: .root) == .viewer)
        #expect(ana.role(at: [0]) == .editor)
        #expect(ana.role(at: [0, 1]) == .editor)
        #expect(ana.role(at: [0, 0]) == .viewer)
        #expect(ana.role(at: [0, 0, 0]) == .viewer)
        #expect(ana.role(at: [1, 0]) == .viewer)
        #expect(policy.view(for: "bob", in: source).role(at: [1, 0]) == .admin)
        #expect(policy.view(for: "bob", in: source).role(at: [2]) == .none)
        #expect(policy.view(for: "nobody", in: source).role(at: .root) == .none)
    }

    @Test("a write outside the granted subtree is refused, naming the user, the role and the role needed")
    func refusal() throws {
        let source = library()
        let view = AccessPolicy(roles: ["ana": .viewer], grants: [Grant(user: "ana", path: "Rock", role: .editor)]).view(for: "ana", in: source)
        try view.requireChange(at: [0, 1])
        let error = #expect(throws: AccessError.self) { try view.requireChange(at: [1], titled: "Jazz") }
        #expect(error?.message == "ana is a viewer at 'Jazz' (1): changing it needs the editor role")
        #expect(error?.at == [1])
        #expect(throws: AccessError.self) { try view.requireChanges([.move([0, 1], parent: [1], index: nil)], in: source) }
        try view.requireChanges([.updateTitle([0, 0], title: "Queen II")], in: source)
        #expect(throws: AccessError.self) { try view.requireChangeEverywhere("undo") }
        #expect(view.mayChangeSomewhere)
    }

    @Test("a subtree granted none is not listed, counted or searched; the rest is")
    func hiddenSubtree() {
        let source = library()
        let view = AccessPolicy(roles: ["ana": .editor], grants: [Grant(user: "ana", path: "Jazz", role: .none)]).view(for: "ana", in: source)
        #expect(view.hidesRows)
        #expect(!view.mayReach([1]) && !view.mayReach([1, 0]) && view.mayReach([2]))
        #expect(view.listedChildren(of: .root, count: 3) == [0, 2])
        #expect(view.listedChildren(of: [0], count: 2) == nil)
        var presenter = Presenter(source: source)
        presenter.access = view
        #expect(presenter.rows(of: source.root).map(\.title) == ["Rock", "Pop"])
        #expect(presenter.rows(of: source.root).map(\.path) == [[0], [2]])
        #expect(presenter.rowCount(of: source.root) == 2)
        #expect(presenter.rows(of: source.root, offset: 1, limit: 5).map(\.title) == ["Pop"])
        let found = view.filter(source.find(SearchQuery("i", limit: .max)), limit: 10, in: source)
        #expect(found.hits.map { source.title(of: $0) } == ["Bohemian"])
        #expect(found.total == 1)
    }

    @Test("with no role on the data, a user walks to the subtree granted to them and sees only it")
    func defaultNone() {
        let source = library()
        let view = AccessPolicy(roles: ["eve": .none], grants: [Grant(user: "eve", path: "Rock/Queen", role: .viewer)]).view(for: "eve", in: source)
        #expect(view.listedChildren(of: .root, count: 3) == [0])
        #expect(view.listedChildren(of: [0], count: 2) == [0])
        #expect(view.listedChildren(of: [0, 0], count: 1) == nil)
        #expect(view.mayReach([0]) && !view.mayRead([0]) && view.mayRead([0, 0, 0]) && !view.mayReach([0, 1]))
        #expect(!view.mayChangeSomewhere)
    }

    @Test("a grant whose path names nothing is left out")
    func unresolved() {
        let view = AccessPolicy(roles: ["ana": .viewer], grants: [Grant(user: "ana", path: "Classical", role: .editor)]).view(for: "ana", in: library())
        #expect(!view.mayChangeSomewhere)
        #expect(!view.hidesRows)
    }
}
