import Foundation
import Testing
@testable import DrillDownCore

@Suite("History: records, inverses, Revert and per-user Undo")
struct HistoryTests {
    let ana = HistoryAuthor(user: "ana")
    let bob = HistoryAuthor(user: "bob")

    func model() throws -> (DocumentModel, MemoryHistoryLog) {
        let log = MemoryHistoryLog()
        let model = DocumentModel(document: EditableDocument(source: DocumentSource(tree: soundsDoc.tree)), actions: try ActionSet(schema: try soundsSchema()))
        return (model, log)
    }

    func title(_ model: DocumentModel, _ path: TreePath) async -> String? {
        let source = await model.source
        return source.node(at: path).map { source.title(of: $0) }
    }

    /// Applies `change` as `author`.
    func apply(_ model: DocumentModel, _ changes: [Change], as author: HistoryAuthor) async throws {
        try await HistoryAuthor.$current.withValue(author) { try await model.apply(changes) }
    }

    @Test("each step is recorded with its author, summary, changes and inverse, newest first")
    func records() async throws {
        let (model, log) = try model()
        await model.keepHistory(in: log)
        try await apply(model, [.updateTitle([0, 3], title: "Chime")], as: ana)
        try await apply(model, [.setAttribute([0, 2], key: "volume", value: Scalar(.integer, "80"))], as: bob)
        let page = try await model.historyPage()
        #expect(page.total == 2)
        #expect(page.records.map(\.user) == ["bob", "ana"])
        #expect(page.records[1].summary == "Rename of Ringtone to Chime")
        #expect(page.records[1].inverse == [.updateTitle([0, 3], title: "Ringtone")])
        #expect(page.records[0].differences == [HistoryDifference(path: [0, 2], field: "volume", old: "60", new: "80")])
        #expect(try await model.historyPage(touching: [0, 3]).records.map(\.id) == [1])
    }

    @Test("a record survives JSON: changes, inverse and paths decode as they were")
    func codable() throws {
        let record = HistoryRecord(
            id: 7, user: nil, session: "s1", summary: "x",
            changes: [.insert(NewNode(title: "A", attributes: [Attribute(key: "n", value: Scalar(.integer, "1"))]), parent: [0], index: 2), .move([1, 0], parent: .root, index: nil)],
            paths: [[0, 2], [2]], inverse: [.setAttribute([0], key: "k", value: nil), .setValue([1], value: Scalar(.null, ""))])
        let data = try JSONEncoder().encode(record)
        let back = try JSONDecoder().decode(HistoryRecord.self, from: data)
        #expect(back.changes == record.changes && back.inverse == record.inverse && back.paths == record.paths && back.session == "s1")
    }

    @Test("the inverse of every kind of change gives the data back")
    func inverses() throws {
        let steps: [[Change]] = [
            [.updateTitle([0, 3], title: "Chime"), .setAttribute([0, 3], key: "plays", value: Scalar(.integer, "5")), .setAttribute([0, 3], key: "new", value: Scalar(.string, "x"))],
            [.delete([0])],
            [.insert(NewNode(title: "Added"), parent: [1], index: 0), .setAttribute([1, 0], key: "k", value: Scalar(.string, "v"))],
            [.move([0, 4], parent: [1], index: 0)],
            [.move([1], parent: [0], index: 1), .delete([0, 0])],
            [.delete([0, 1]), .delete([0, 1])],
        ]
        for changes in steps {
            var document = EditableDocument(source: DocumentSource(tree: soundsDoc.tree))
            let before = document.source
            let paths = try document.apply(changes)
            let inverse = ChangeInverse.of(changes, paths: paths, in: before)
            try document.apply(inverse)
            #expect(dump(document.tree) == dump(before.tree), "\(changes)")
        }
    }

    @Test("Revert of an old rename restores it after later steps elsewhere moved its row, and is itself recorded")
    func revertOldRename() async throws {
        let (model, log) = try model()
        await model.keepHistory(in: log)
        try await apply(model, [.updateTitle([0, 3], title: "Chime")], as: ana)
        try await apply(model, [.insert(NewNode(title: "First"), parent: [0], index: 0)], as: bob)
        try await apply(model, [.setAttribute([1, 0], key: "version", value: Scalar(.string, "2.0"))], as: bob)
        #expect(await title(model, [0, 4]) == "Chime")
        try await HistoryAuthor.$current.withValue(bob) { try await model.revert(1) }
        #expect(await title(model, [0, 4]) == "Ringtone")
        let newest = try await model.historyPage().records[0]
        #expect(newest.kind == .revert && newest.target == 1 && newest.user == "bob")
        await #expect(throws: EditError.self) { try await model.revert(1) }
    }

    @Test("Revert is refused, naming the later step, when it changed or deleted the row")
    func revertRefused() async throws {
        let (model, log) = try model()
        await model.keepHistory(in: log)
        try await apply(model, [.updateTitle([0, 3], title: "Chime")], as: ana)
        try await apply(model, [.updateTitle([0, 3], title: "Bell")], as: bob)
        try await apply(model, [.insert(NewNode(title: "New"), parent: [1], index: nil)], as: ana)
        try await apply(model, [.delete([1])], as: bob)
        do {
            try await model.revert(1)
            Issue.record("the revert was applied")
        } catch {
            #expect(error.message.contains("#2 by bob (Rename of Chime to Bell) changed it since"), "\(error.message)")
            #expect(error.reason == .conflict)
        }
        await #expect(throws: EditError.self) { try await model.revert(3) }   // its parent was deleted since
        #expect(await title(model, [0, 3]) == "Bell")
        try await model.revert(4)                                            // the delete, with everything below
        #expect(await title(model, [1]) == "General")
        #expect(await title(model, [1, 1]) == "New")
    }

    @Test("Undo and Redo are per user: my Undo never takes back your change")
    func perUserUndo() async throws {
        let (model, log) = try model()
        await model.keepHistory(in: log)
        try await apply(model, [.updateTitle([0], title: "Ana's")], as: ana)
        try await apply(model, [.updateTitle([1], title: "Bob's")], as: bob)
        try await HistoryAuthor.$current.withValue(ana) {
            #expect(await model.history(for: ana).undo == "Rename of Sounds to Ana's")
            try await model.undo()
        }
        #expect(await title(model, [0]) == "Sounds")
        #expect(await title(model, [1]) == "Bob's")
        #expect(await model.history(for: ana) == HistoryState(canUndo: false, canRedo: true, undo: nil, redo: "Rename of Sounds to Ana's"))
        #expect(await model.history(for: bob).undo == "Rename of General to Bob's")
        try await HistoryAuthor.$current.withValue(ana) { try await model.redo() }
        #expect(await title(model, [0]) == "Ana's")
        try await HistoryAuthor.$current.withValue(bob) { try await model.undo() }
        #expect(await title(model, [1]) == "General")
        #expect(await title(model, [0]) == "Ana's")
        #expect(await model.history(for: ana).canUndo)
        #expect(await model.history(for: HistoryAuthor(user: nil, session: "other")) == HistoryState())
    }

    @Test("after my own change my Undo is that change, known without reading the log; others' changes are read")
    func ownChangeNeedsNoRead() async throws {
        let (model, memory) = try model()
        let log = CountingLog(memory)
        await model.keepHistory(in: log)
        try await apply(model, [.updateTitle([0], title: "Ana's")], as: ana)
        let mine = HistoryState(canUndo: true, canRedo: false, undo: "Rename of Sounds to Ana's")
        #expect(await model.history(for: ana) == mine)
        #expect(log.reads == 0)
        // After an Undo the state is read from the log, and a new change of mine closes my Redo.
        try await HistoryAuthor.$current.withValue(ana) { try await model.undo() }
        #expect(await model.history(for: ana) == HistoryState(canUndo: false, canRedo: true, redo: "Rename of Sounds to Ana's"))
        try await apply(model, [.updateTitle([0], title: "Ana's again")], as: ana)
        let reads = log.reads
        #expect(await model.history(for: ana) == HistoryState(canUndo: true, canRedo: false, undo: "Rename of Sounds to Ana's again"))
        #expect(log.reads == reads)
        // Bob's change since: ana's state is read again, and is still her change.
        try await apply(model, [.updateTitle([1], title: "Bob's")], as: bob)
        #expect(await model.history(for: ana) == HistoryState(canUndo: true, canRedo: false, undo: "Rename of Sounds to Ana's again"))
        #expect(log.reads > reads)
    }

    @Test("paths move through inserts, deletes and moves, and back")
    func pathShift() {
        let insert = Change.insert(NewNode(title: "x"), parent: [0], index: 1)
        #expect(PathShift.forward([0, 1, 2], through: insert, produced: [0, 1]) == [0, 2, 2])
        #expect(PathShift.forward([0, 0], through: insert, produced: [0, 1]) == [0, 0])
        #expect(PathShift.backward([0, 1], through: insert, produced: [0, 1]) == nil)
        #expect(PathShift.forward([2, 0], through: .delete([2]), produced: [2]) == nil)
        #expect(PathShift.forward([3], through: .delete([2]), produced: [2]) == [2])
        #expect(PathShift.forward([2], through: .delete([2]), produced: [2], slot: true) == [2])
        let move = Change.move([0, 3], parent: [1], index: 0)
        #expect(PathShift.forward([0, 3, 1], through: move, produced: [1, 0]) == [1, 0, 1])
        #expect(PathShift.forward([0, 4], through: move, produced: [1, 0]) == [0, 3])
        #expect(PathShift.backward([0, 3], through: move, produced: [1, 0]) == [0, 4])
        #expect(PathShift.backward([1, 0, 2], through: move, produced: [1, 0]) == [0, 3, 2])
    }
}

/// A ``MemoryHistoryLog`` that counts the reads of a user's newest records, and notes the largest read after an id.
final class CountingLog: HistoryLog, @unchecked Sendable {
    let log: MemoryHistoryLog
    private let lock = NSLock()
    private var count = 0

    init(_ log: MemoryHistoryLog) { self.log = log }

    var reads: Int { lock.withLock { count } }

    func begin(_ records: [HistoryRecord]) throws -> [HistoryRecord] { try log.begin(records) }
    func finish(_ ids: [Int64], written: Bool) throws { try log.finish(ids, written: written) }
    func page(touching path: TreePath, offset: Int, limit: Int) throws -> HistoryPage { try log.page(touching: path, offset: offset, limit: limit) }
    func record(_ id: Int64) throws -> HistoryRecord? { try log.record(id) }
    func records(after id: Int64) throws -> [HistoryRecord] { noted(try log.records(after: id)) }
    func records(after id: Int64, limit: Int) throws -> [HistoryRecord] { noted(try log.records(after: id, limit: limit)) }

    /// The most records one read after an id returned.
    var largestRead: Int { lock.withLock { largest } }
    private var largest = 0

    private func noted(_ records: [HistoryRecord]) -> [HistoryRecord] {
        lock.withLock { largest = max(largest, records.count) }
        return records
    }

    func recent(by author: HistoryAuthor, limit: Int) throws -> [HistoryRecord] {
        lock.withLock { count += 1 }
        return try log.recent(by: author, limit: limit)
    }
}
