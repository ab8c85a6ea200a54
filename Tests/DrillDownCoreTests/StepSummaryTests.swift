import Foundation
import Testing
@testable import DrillDownCore

@Suite("Feedback: what each undoable step is called, and what Undo and Redo can do")
struct StepSummaryTests {
    let sounds = DocumentSource(tree: soundsDoc.tree)

    @Test("one change is named by its kind and the row's title before it")
    func single() {
        #expect(StepSummary.describe([.updateTitle([0, 3], title: "Chime")], in: sounds) == "Rename of Ringtone to Chime")
        #expect(StepSummary.describe([.delete([0, 4])], in: sounds) == "Delete of Text Tone")
        #expect(StepSummary.describe([.move([0, 3], parent: [1], index: nil)], in: sounds) == "Move of Ringtone")
        #expect(StepSummary.describe([.insert(NewNode(title: "Marimba"), parent: [0], index: nil)], in: sounds) == "Addition of Marimba")
        #expect(StepSummary.describe([.setAttribute([0, 3], key: "plays", value: Scalar(.integer, "1"))], in: sounds) == "Change of plays of Ringtone")
        #expect(StepSummary.describe([.setAttribute([0, 3], key: "plays", value: nil)], in: sounds) == "Removal of plays from Ringtone")
        let generic = DocumentSource(tree: Doc.object([("port", .int(8080)), ("host", .string("x"))]).tree, mode: .generic)
        #expect(StepSummary.describe([.setValue([0], value: Scalar(.integer, "9090"))], in: generic) == "Change of port")
    }

    @Test("several rows are counted; several changes of one row name it; long titles are cut")
    func several() {
        let moves: [Change] = [.move([0, 1], parent: [1], index: nil), .move([0, 1], parent: [1], index: nil), .move([0, 1], parent: [1], index: nil)]
        #expect(StepSummary.describe(moves, in: sounds) == "Move of 3 rows")
        #expect(StepSummary.describe([.delete([0, 4]), .delete([0, 3])], in: sounds) == "Delete of 2 rows")
        let form: [Change] = [.updateTitle([0, 3], title: "Chime"), .setAttribute([0, 3], key: "file", value: Scalar(.string, "Chime.m4r"))]
        #expect(StepSummary.describe(form, in: sounds) == "Change of Ringtone")
        #expect(StepSummary.describe([.updateTitle([0, 3], title: "A"), .delete([1])], in: sounds) == "Edit of 2 rows")
        let long = String(repeating: "x", count: 100)
        #expect(StepSummary.describe([.insert(NewNode(title: long), parent: [0], index: nil)], in: sounds) == "Addition of " + String(repeating: "x", count: 39) + "…")
    }

    @Test("a document's history says what Undo and Redo would do, and its steps carry their summaries")
    func documentHistory() throws {
        var doc = EditableDocument(source: sounds)
        #expect(doc.history == .empty)
        try doc.apply(.updateTitle([0, 3], title: "Chime"))
        try doc.apply(.delete([0, 4]))
        #expect(doc.history == HistoryState(canUndo: true, canRedo: false, undo: "Delete of Text Tone", redo: nil))
        let undone = doc.undo()
        #expect(undone?.summary == "Delete of Text Tone")
        #expect(undone?.level(undone: true) == [0] && undone?.row(undone: true) == [0, 4])
        #expect(doc.history == HistoryState(canUndo: true, canRedo: true, undo: "Rename of Ringtone to Chime", redo: "Delete of Text Tone"))
        doc.undo()
        #expect(doc.history == HistoryState(canUndo: false, canRedo: true, undo: nil, redo: "Rename of Ringtone to Chime"))
        let redone = doc.redo()
        #expect(redone?.summary == "Rename of Ringtone to Chime" && redone?.level(undone: false) == [0])
    }

    @Test("the model's events carry each step's summary and the history after it; undo returns the step it took back")
    func modelEvents() async throws {
        let model = DocumentModel(document: EditableDocument(source: sounds), actions: try ActionSet(schema: try soundsSchema()))
        #expect(model.versionedState.history == .empty)
        let events = await model.changes()
        try await model.apply(.move([0, 4], parent: [1], index: nil))
        let step = try await model.undo()
        #expect(step?.summary == "Move of Text Tone")
        #expect(step?.level(undone: true) == [0])
        var it = events.makeAsyncIterator()
        let applied = await it.next()!, undone = await it.next()!
        #expect(applied.summary == "Move of Text Tone" && applied.history == HistoryState(canUndo: true, undo: "Move of Text Tone"))
        #expect(undone.origin == .undo && undone.summary == "Move of Text Tone")
        #expect(undone.history == HistoryState(canUndo: false, canRedo: true, redo: "Move of Text Tone"))
        #expect(model.versionedState.history == undone.history)
        #expect(await model.history == undone.history)
    }
}
