import Foundation
import Testing
@testable import DrillDownCore

/// A storage in memory that takes a while to write, counts writes, and can pretend that someone
/// else wrote a newer version.
private final class SlowStorageState: @unchecked Sendable {
    let lock = NSLock()
    var disk: TreeStore
    var writes = 0
    var failNext = false
    init(_ tree: TreeStore) { disk = tree }
}

private struct SlowStorage: DocumentStorage {
    let state: SlowStorageState
    var tree: TreeStore

    mutating func store(_ new: TreeStore) throws -> TreeStore? {
        Thread.sleep(forTimeInterval: 0.02)
        state.lock.lock()
        defer { state.lock.unlock() }
        if state.failNext {
            state.failNext = false
            throw EditError("disk full")
        }
        guard state.disk.isStructurallyEqual(to: tree) else {
            tree = state.disk
            return state.disk
        }
        state.disk = new
        state.writes += 1
        tree = new
        return nil
    }

    mutating func changes() throws -> TreeStore? {
        state.lock.lock()
        defer { state.lock.unlock() }
        guard !state.disk.isStructurallyEqual(to: tree) else { return nil }
        tree = state.disk
        return tree
    }
}

@Suite("Editing: group commit of a document kept in a file")
struct EditingGroupCommitTests {
    static func outline(_ titles: [String]) -> TreeStore {
        var b = TreeBuilder()
        b.beginNode(); b.endKey(); b.openContainer(.object)
        b.beginNode(); b.appendText("Rows"); b.endKey(); b.openContainer(.array)
        for t in titles {
            b.beginNode(); b.endKey(); b.openContainer(.object)
            b.beginNode(); b.appendText("Title"); b.endKey(); b.appendText(t); b.finishScalar(.string)
            b.closeContainer()
        }
        b.closeContainer()
        b.closeContainer()
        return b.build()
    }

    @Test("40 concurrent changes are acknowledged after fewer writes, and all are on disk")
    func groups() async throws {
        let tree = Self.outline(["a"])
        let state = SlowStorageState(tree)
        let model = DocumentModel(document: EditableDocument(tree: tree), storage: SlowStorage(state: state, tree: tree))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0 ..< 40 {
                group.addTask { try await model.apply(.insert(NewNode(title: "n\(i)"), parent: .root, index: nil)) }
            }
            try await group.waitForAll()
        }
        let rows = DocumentSource(tree: state.disk).childCount(of: state.disk.root)
        #expect(rows == 41)
        #expect(state.writes < 40)
        #expect(await model.writtenSteps == 40)
    }

    /// Clients that each send their next change as soon as the last one is acknowledged (20
    /// clients renaming rows of a big file): without waiting a little for them, every other write
    /// would hold only the first client to come back, and the rest would wait a write longer.
    @Test("clients that each wait for their acknowledgment share one write a round")
    func gathers() async throws {
        let tree = Self.outline(["a"])
        let state = SlowStorageState(tree)
        let model = DocumentModel(document: EditableDocument(tree: tree), storage: SlowStorage(state: state, tree: tree))
        // The limit only bounds the wait for a client that left; under a parallel test run the
        // clients can take longer than a 20 ms write's 5 ms to come back, which is not what this checks.
        await model.setGatherLimit(.seconds(10))
        let clients = 8, rounds = 10
        try await withThrowingTaskGroup(of: Void.self) { group in
            for c in 0 ..< clients {
                group.addTask {
                    for r in 0 ..< rounds { try await model.apply(.insert(NewNode(title: "c\(c)-\(r)"), parent: .root, index: nil)) }
                }
            }
            try await group.waitForAll()
        }
        #expect(DocumentSource(tree: state.disk).childCount(of: state.disk.root) == 1 + clients * rounds)
        // One write a round (plus the clients' start); alternating batches of 1 and 7 take 20.
        #expect(state.writes <= rounds + 3, "\(state.writes) writes for \(rounds) rounds of \(clients) clients")
    }

    @Test("a change made over an older copy is applied again to the newer file, never over it")
    func rebases() async throws {
        let tree = Self.outline(["a"])
        let state = SlowStorageState(tree)
        let model = DocumentModel(document: EditableDocument(tree: tree), storage: SlowStorage(state: state, tree: tree))
        state.disk = Self.outline(["a", "theirs"])
        try await model.apply(.insert(NewNode(title: "mine"), parent: .root, index: nil))
        let s = DocumentSource(tree: state.disk)
        #expect(s.children(of: s.root).map { s.title(of: $0) } == ["a", "theirs", "mine"])
        // A change that no longer applies is refused with a message.
        state.disk = Self.outline([])
        await #expect(throws: EditError.self) { try await model.apply(.delete([2])) }
        #expect(DocumentSource(tree: state.disk).childCount(of: state.disk.root) == 0)
    }

    @Test("a failed write fails its changes and the document goes back to what is on disk")
    func failure() async throws {
        let tree = Self.outline(["a"])
        let state = SlowStorageState(tree)
        let model = DocumentModel(document: EditableDocument(tree: tree), storage: SlowStorage(state: state, tree: tree))
        state.failNext = true
        await #expect(throws: EditError.self) { try await model.apply(.updateTitle([0], title: "b")) }
        let source = await model.source
        #expect(source.title(of: source.children(of: source.root)[0]) == "a")
    }

    @Test("refresh picks up a change made elsewhere and tells subscribers")
    func refresh() async throws {
        let tree = Self.outline(["a"])
        let state = SlowStorageState(tree)
        let model = DocumentModel(document: EditableDocument(tree: tree), storage: SlowStorage(state: state, tree: tree))
        #expect(try await model.refresh() == false)
        state.disk = Self.outline(["a", "b"])
        #expect(try await model.refresh())
        let source = await model.source
        #expect(source.childCount(of: source.root) == 2)
    }
}
