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

    @Test("a move or delete needs the right on the row's whole subtree and at the new parent, not only at the row")
    func subtreeAndDestination() throws {
        let source = library()
        // ana edits everything but reads Queen only and may not see Miles.
        let ana = AccessPolicy(roles: ["ana": .editor], grants: [
            Grant(user: "ana", path: "Rock/Queen", role: .viewer), Grant(user: "ana", path: "Jazz/Miles", role: .none),
        ]).view(for: "ana", in: source)
        let moveRock = #expect(throws: AccessError.self) { try ana.requireChanges([.move([0], parent: [2], index: nil)], in: source) }
        #expect(moveRock?.message == "ana is a viewer at 0.0 inside 'Rock' (0): moving or deleting it needs the editor role on all of it")
        #expect(moveRock?.at == [0, 0])
        let deleteJazz = #expect(throws: AccessError.self) { try ana.requireChanges([.delete([1])], in: source) }
        #expect(deleteJazz?.message == "'Jazz' (1) holds rows ana may not change: moving or deleting it needs the editor role on all of it")
        #expect(deleteJazz?.message.contains("Miles") == false)
        // Rows without such grants below them move and go as before.
        try ana.requireChanges([.move([0, 1], parent: [2], index: nil), .delete([2])], in: source)
        // Rocky edits Rock only: nothing moves out of it or into it from elsewhere, nothing is added outside it.
        let rocky = AccessPolicy(roles: ["rocky": .viewer], grants: [Grant(user: "rocky", path: "Rock", role: .editor)]).view(for: "rocky", in: source)
        let out = #expect(throws: AccessError.self) { try rocky.requireChanges([.move([0, 1], parent: [2], index: 0)], in: source) }
        #expect(out?.message == "rocky is a viewer at 'Pop' (2): changing it needs the editor role")
        #expect(throws: AccessError.self) { try rocky.requireChanges([.move([1, 0], parent: [0], index: 0)], in: source) }
        #expect(throws: AccessError.self) { try rocky.requireChanges([.insert(NewNode(title: "Blues"), parent: .root, index: nil)], in: source) }
        try rocky.requireChanges([.move([0, 1], parent: [0, 0], index: 0), .insert(NewNode(title: "Live"), parent: [0], index: 0)], in: source)
    }

    @Test("the changes of one step are checked in the data their predecessors left")
    func stepsFollowEarlierChanges() throws {
        let source = library()
        let ana = AccessPolicy(roles: ["ana": .editor], grants: [Grant(user: "ana", path: "Pop", role: .viewer)]).view(for: "ana", in: source)
        // After Rock (0) is deleted, Pop is 1: renaming 1 is renaming Pop.
        #expect(throws: AccessError.self) { try ana.requireChanges([.delete([0]), .updateTitle([1], title: "Pop!")], in: source) }
        try ana.requireChanges([.delete([0]), .updateTitle([0], title: "Jazz!")], in: source)
        // A row added in front of Pop moves it to 3 …
        #expect(throws: AccessError.self) { try ana.requireChanges([.insert(NewNode(title: "New"), parent: .root, index: 0), .delete([3])], in: source) }
        try ana.requireChanges([.insert(NewNode(title: "New"), parent: .root, index: 0), .delete([2])], in: source)
        // … and a hidden row's title is never named, even when the row is addressed directly.
        let eve = AccessPolicy(roles: ["eve": .editor], grants: [Grant(user: "eve", path: "Jazz", role: .none)]).view(for: "eve", in: source)
        let error = #expect(throws: AccessError.self) { try eve.requireChanges([.updateTitle([1], title: "x")], in: source) }
        #expect(error?.message == "eve has no role at 1: changing it needs the editor role")
    }

    @Test("a grant whose path names nothing is left out")
    func unresolved() {
        let view = AccessPolicy(roles: ["ana": .viewer], grants: [Grant(user: "ana", path: "Classical", role: .editor)]).view(for: "ana", in: library())
        #expect(!view.mayChangeSomewhere)
        #expect(!view.hidesRows)
    }
}
