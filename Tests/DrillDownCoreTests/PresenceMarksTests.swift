import Foundation
import Testing
@testable import DrillDownCore

/// A row's marker follows it through every kind of change (`PresenceBeat.following(_:)` over
/// `ChangeEvent.following(_:)`): an edit, an Undo and a Redo (a store's own, and the audit
/// history's per user), another writer's recorded step; after a reload that says nothing of how
/// rows moved, a marker whose row cannot be found is dropped.
@Suite("Presence marks follow their rows")
struct PresenceMarksTests {
    let ana = HistoryAuthor(user: "ana")
    let bo = HistoryAuthor(user: "bo")

    /// A model over the Sounds example, with an audit history when `log` is given, and a stream of its events.
    func model(_ log: MemoryHistoryLog?) async -> (DocumentModel, AsyncStream<ChangeEvent>.Iterator) {
        let model = DocumentModel(document: EditableDocument(source: DocumentSource(tree: soundsDoc.tree)))
        if let log { await model.keepHistory(in: log) }
        return (model, await model.changes().makeAsyncIterator())
    }

    /// The title of the row `beat` edits, in `source`.
    func edited(_ beat: PresenceBeat, _ source: any Source) -> String? {
        beat.editing.flatMap { source.node(at: $0) }.map(source.title(of:))
    }

    @Test("a marker stays on its row through an edit above it, its Undo and its Redo, with and without a history", arguments: [false, true])
    func undoAndRedo(history: Bool) async throws {
        let (model, events) = await model(history ? MemoryHistoryLog() : nil)
        var iterator = events
        // Bo edits Ringtone (0.3) from a page on Sounds.
        var beat = PresenceBeat(page: "p1", user: "bo", level: [0], editing: [0, 3]).remembering(in: await model.source)
        #expect(beat.editedTitle == "Ringtone")
        var presence = Presence()
        presence.record(beat, at: .now)
        // Ana deletes Vibrate on Ring, above it; then undoes it; then redoes it.
        try await HistoryAuthor.$current.withValue(ana) { try await model.apply(.delete([0, 0])) }
        let steps: [(String, TreePath)] = [("apply", [0, 2]), ("undo", [0, 3]), ("redo", [0, 2])]
        for (k, (origin, row)) in steps.enumerated() {
            if k == 1 { _ = try await HistoryAuthor.$current.withValue(ana) { try await model.undo() } }
            if k == 2 { _ = try await HistoryAuthor.$current.withValue(ana) { try await model.redo() } }
            let event = try #require(await iterator.next())
            #expect(event.origin.rawValue == origin)
            #expect(event.takesBack == (origin == "undo" && !history))
            beat = beat.following(event)
            let moved = presence.follow(event)
            #expect(moved)
            #expect(beat.editing == row, "after the \(origin)")
            #expect(edited(beat, event.source) == "Ringtone")
            #expect(presence.visitors(of: [0], for: "ana") { _ in true } == [PresenceVisitor(user: "bo", editing: [row])])
        }
    }

    @Test("an Undo that takes back an insert above the row moves it up again, and one that takes back its own insert drops it")
    func undoOfInserts() async throws {
        let (model, events) = await model(nil)
        var iterator = events
        try await model.apply(.insert(NewNode(title: "New"), parent: [0], index: 0))
        let inserted = try #require(await iterator.next())
        var beat = PresenceBeat(page: "p1", user: "bo", level: [0], editing: [0, 4]).remembering(in: inserted.source)
        let marksNew = PresenceBeat(page: "p2", user: "cy", level: [0], editing: [0, 0]).remembering(in: inserted.source)
        #expect(beat.editedTitle == "Ringtone")
        try await model.undo()
        let undone = try #require(await iterator.next())
        beat = beat.following(undone)
        #expect(beat.editing == [0, 3] && edited(beat, undone.source) == "Ringtone")
        #expect(marksNew.following(undone).editing == nil)
    }

    @Test("another writer's recorded steps move the marker; after a reload that records nothing, it is looked for by its title and dropped when not found")
    func externalChanges() throws {
        let before = DocumentSource(tree: soundsDoc.tree)
        let beat = PresenceBeat(page: "p1", user: "bo", level: [0], editing: [0, 3]).remembering(in: before)
        // Another instance deleted the first row of Sounds, and recorded it.
        var document = EditableDocument(source: before)
        let paths = try document.apply([.delete([0, 0])])
        func external(_ source: any Source, recorded: [EditStep]) -> ChangeEvent {
            ChangeEvent(revision: 2, origin: .external, changes: [], paths: [], summary: "", history: HistoryState(), source: source, recorded: recorded)
        }
        let recorded = external(document.snapshot, recorded: [EditStep(changes: [.delete([0, 0])], paths: paths)])
        #expect(recorded.following([0, 3]) == [0, 2])
        #expect(beat.following(recorded).editing == [0, 2])
        // The same change unrecorded (the sqlite3 shell): Ringtone is found one row up.
        #expect(beat.following(external(document.snapshot, recorded: [])).editing == [0, 2])
        // Ringtone deleted too: the marker goes rather than land on Text Tone.
        _ = try document.apply([.delete([0, 2])])
        #expect(beat.following(external(document.snapshot, recorded: [])).editing == nil)
        // Two rows titled alike, as near: which one is not known, so the marker goes.
        var twins = EditableDocument(source: before)
        _ = try twins.apply([.updateTitle([0, 2], title: "Ringtone"), .updateTitle([0, 3], title: "Bell"), .updateTitle([0, 4], title: "Ringtone")])
        #expect(beat.following(external(twins.snapshot, recorded: [])).editing == nil)
        // A beat heard from another instance carries no title: it is moved as recorded, and its own instance checks it.
        let remote = PresenceBeat(page: "p9", user: "cy", level: [0], editing: [0, 3])
        #expect(remote.following(external(document.snapshot, recorded: [])).editing == [0, 3])
    }

    @Test("a model's external change carries the steps other instances recorded since it last looked, not its own")
    func modelRecordsElsewhere() async throws {
        let log = MemoryHistoryLog()
        let (model, events) = await model(log)
        var iterator = events
        try await HistoryAuthor.$current.withValue(ana) { try await model.apply(.updateTitle([1], title: "Général")) }
        _ = await iterator.next()
        let source = await model.source
        let elsewhere = HistoryRecord([.delete([0, 0])], paths: [[0, 0]], before: source, by: HistoryAuthor(user: "bo", instance: "web-2:7"))
        _ = try log.append([elsewhere])
        await model.publishExternal()
        let first = try #require(await iterator.next())
        #expect(first.origin == .external)
        #expect(first.recorded.map(\.changes) == [[.delete([0, 0])]])
        #expect(first.following([0, 3]) == [0, 2])
        // Nothing new since: the next reload records nothing.
        await model.publishExternal()
        #expect(try #require(await iterator.next()).recorded.isEmpty)
    }

    @Test("past the limit of records an external change reads, it reads no more than one past it, follows nothing, and goes on from the newest")
    func modelRecordsBounded() async throws {
        let log = MemoryHistoryLog(), counting = CountingLog(log)
        let model = DocumentModel(document: EditableDocument(source: DocumentSource(tree: soundsDoc.tree)))
        await model.keepHistory(in: counting)
        var iterator = await model.changes().makeAsyncIterator()
        let source = await model.source
        let elsewhere = HistoryAuthor(user: "bo", instance: "web-2:7")
        let many = (0 ..< DocumentModel.recordedLimit * 3 / 2).map { _ in HistoryRecord([.updateTitle([0], title: "x")], paths: [[0]], before: source, by: elsewhere) }
        _ = try log.append(many)
        await model.publishExternal()
        #expect(try #require(await iterator.next()).recorded.isEmpty)
        #expect(counting.largestRead == DocumentModel.recordedLimit + 1)
        // The next external change follows only what came after the newest of those.
        _ = try log.append([HistoryRecord([.delete([0, 0])], paths: [[0, 0]], before: source, by: elsewhere)])
        await model.publishExternal()
        #expect(try #require(await iterator.next()).recorded.map(\.changes) == [[.delete([0, 0])]])
    }
}
