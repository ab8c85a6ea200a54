import Foundation
import Testing
@testable import DrillDownCore

@Suite("Editing: the observable DocumentModel")
struct EditingModelTests {
    func model(save: (@Sendable (TreeStore) throws -> Void)? = nil) throws -> DocumentModel {
        DocumentModel(
            document: EditableDocument(source: DocumentSource(tree: soundsDoc.tree)),
            actions: try ActionSet(schema: try soundsSchema()), save: save)
    }

    @Test("two subscribers both receive every change, with a snapshot after it")
    func twoSubscribers() async throws {
        let model = try model()
        let first = await model.changes()
        let second = await model.changes()
        #expect(await model.subscriberCount == 2)
        try await model.run("play", at: [0, 3])
        try await model.apply(.updateTitle([1], title: "Général"))
        try await model.undo()
        for stream in [first, second] {
            var it = stream.makeAsyncIterator()
            let a = await it.next()!, b = await it.next()!, c = await it.next()!
            #expect(a.origin == .apply && a.revision == 1 && a.paths == [[0, 3]])
            #expect(a.source.attribute("plays", of: a.source.node(at: [0, 3])!) == Scalar(.integer, "1"))
            #expect(b.changes == [.updateTitle([1], title: "Général")])
            #expect(b.source.title(of: b.source.node(at: [1])!) == "Général")
            #expect(c.origin == .undo && c.revision == 3)
            #expect(c.source.title(of: c.source.node(at: [1])!) == "General")
        }
        #expect(await model.revision == 3)
    }

    @Test("a subscriber that stops listening is forgotten")
    func unsubscribe() async throws {
        let model = try model()
        do {
            let stream = await model.changes()
            _ = stream
        }
        for _ in 0 ..< 100 where await model.subscriberCount > 0 { await Task.yield() }
        #expect(await model.subscriberCount == 0)
    }

    @Test("every step is saved; a failing save rolls the step back and publishes nothing")
    func saving() async throws {
        final class Box: @unchecked Sendable { var trees: [TreeStore] = []; var fail = false }
        struct DiskFull: Error {}
        let box = Box()
        let model = try model { tree in
            if box.fail { throw DiskFull() }
            box.trees.append(tree)
        }
        try await model.apply(.delete([1]))
        #expect(box.trees.count == 1)
        #expect(box.trees[0].isStructurallyEqual(to: await model.document!.tree))
        box.fail = true
        await #expect(throws: EditError.self) { try await model.apply(.delete([0])) }
        #expect(await model.source.childCount(of: await model.source.root) == 1)
        #expect(await model.revision == 1)
        box.fail = false
        try await model.undo()
        #expect(box.trees.last!.isStructurallyEqual(to: soundsDoc.tree))
    }

    @Test("controls and code-registered actions go through the model")
    func controls() async throws {
        let model = try model()
        let schema = try soundsSchema()
        await model.registerAction("reset") { path, _ in [.setAttribute(path, key: "plays", value: Scalar(.integer, "0"))] }
        try await model.operate(schema.template(named: "volume")!.controls[0], with: .set("33"), at: [0, 2])
        try await model.run("play", at: [0, 3])
        try await model.run("reset", at: [0, 3])
        let s = await model.source
        #expect(s.attribute("volume", of: s.node(at: [0, 2])!) == Scalar(.integer, "35"))
        #expect(s.attribute("plays", of: s.node(at: [0, 3])!) == Scalar(.integer, "0"))
        await #expect(throws: EditError.self) { try await model.run("play", at: [7]) }
    }

    @Test("concurrent actions are serialized: none is lost")
    func concurrent() async throws {
        let model = try model()
        await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0 ..< 50 { group.addTask { try await model.run("play", at: [0, 3]) } }
        }
        let s = await model.source
        #expect(s.attribute("plays", of: s.node(at: [0, 3])!) == Scalar(.integer, "50"))
    }
}

/// A store another writer changes: ``refresh()`` picks up the document `pending` holds, once.
struct ForeignWriterStore: EditingStore {
    final class Pending: @unchecked Sendable {
        let lock = NSLock()
        var document: EditableDocument?
    }

    var document: EditableDocument
    let pending: Pending

    var snapshot: any Source { document.source }
    var canUndo: Bool { false }
    var canRedo: Bool { false }
    mutating func apply(_ changes: [Change]) throws(EditError) -> [TreePath] { try document.apply(changes) }
    mutating func undo() throws(EditError) -> EditStep? { nil }
    mutating func redo() throws(EditError) -> EditStep? { nil }
    mutating func refresh() throws(EditError) -> Bool {
        let next = pending.lock.withLock { () -> EditableDocument? in
            defer { pending.document = nil }
            return pending.document
        }
        guard let next else { return false }
        document = next
        return true
    }
}

@Suite("Editing: following another writer")
struct EditingWatchTests {
    @Test("news wakes the watch at once: a refresh long before the next tick", .timeLimit(.minutes(1)))
    func newsWakesTheWatch() async throws {
        let pending = ForeignWriterStore.Pending()
        let model = DocumentModel(store: ForeignWriterStore(document: EditableDocument(source: DocumentSource(tree: soundsDoc.tree)), pending: pending))
        let (news, announce) = AsyncStream<Void>.makeStream()
        let watching = await model.watch(every: .seconds(3600), wakingOn: news)
        defer { watching.cancel() }
        let events = await model.changes()
        var changed = EditableDocument(source: DocumentSource(tree: soundsDoc.tree))
        _ = try changed.apply([.updateTitle([1], title: "Changed elsewhere")])
        pending.lock.withLock { pending.document = changed }
        let start = ContinuousClock.now
        announce.yield()
        var it = events.makeAsyncIterator()
        let event = try #require(await it.next())
        #expect(event.origin == .external)
        #expect(event.source.title(of: event.source.node(at: [1])!) == "Changed elsewhere")
        #expect(ContinuousClock.now - start < .seconds(30), "the refresh came from the news, not the hourly tick")
    }
}
