import Foundation
import Testing
@testable import DrillDownCore

@Suite("Editing: idempotency keys (StepKey)")
struct StepKeyTests {
    func model() throws -> DocumentModel {
        DocumentModel(document: EditableDocument(source: DocumentSource(tree: soundsDoc.tree)), actions: try ActionSet(schema: try soundsSchema()))
    }

    @Test("a retried key returns the first outcome and applies nothing")
    func retryIsAppliedOnce() async throws {
        let model = try model()
        let before = await model.source.childCount(of: await model.source.root)
        let key = StepKey("k-1", request: "add / title=Ring")
        let first = try await model.apply(.insert(NewNode(title: "Ring"), parent: .root, index: nil), key: key)
        let again = try await model.apply(.insert(NewNode(title: "Ring"), parent: .root, index: nil), key: key)
        #expect(first == again)
        #expect(await model.source.childCount(of: await model.source.root) == before + 1)
        #expect(await model.revision == 1)
        #expect(try await model.outcome(of: key)?.replayed == true)
        #expect(await model.recorded(key)?.replayed == false)
    }

    @Test("a key used again for another request is refused, and nothing is applied")
    func reusedKeyIsRefused() async throws {
        let model = try model()
        try await model.apply(.updateTitle([1], title: "A"), key: StepKey("k", request: "rename /1 title=A"))
        await #expect(throws: EditError.self) {
            try await model.apply(.updateTitle([1], title: "B"), key: StepKey("k", request: "rename /1 title=B"))
        }
        do {
            try await model.apply(.updateTitle([1], title: "B"), key: StepKey("k", request: "rename /1 title=B"))
        } catch {
            #expect(error.reason == .keyReused)
        }
        #expect(await model.source.title(of: await model.source.node(at: [1])!) == "A")
    }

    @Test("keyed undo and actions: a retry does not undo or press twice")
    func undoAndActionsOnce() async throws {
        let model = try model()
        let press = StepKey("p", request: "run /0.3 action=play")
        try await model.run("play", at: [0, 3], key: press)
        try await model.run("play", at: [0, 3], key: press)
        let plays = { await model.source.attribute("plays", of: await model.source.node(at: [0, 3])!) }
        #expect(await plays() == Scalar(.integer, "1"))
        try await model.apply(.updateTitle([1], title: "X"))
        let undo = StepKey("u", request: "undo")
        try await model.undo(key: undo)
        try await model.undo(key: undo)
        #expect(await plays() == Scalar(.integer, "1"))
        #expect(await model.source.title(of: await model.source.node(at: [1])!) == "General")
    }

    @Test("the ledger remembers at most its limit of keys, oldest forgotten first")
    func bounded() {
        let ledger = KeyLedger(limit: 100)
        for i in 0 ..< 105 { ledger.remember(StepOutcome(request: "r", paths: [[i]]), for: StepKey("k\(i)", request: "r")) }
        #expect(ledger.count == 100)
        #expect(ledger.recorded(StepKey("k4", request: "r")) == nil)
        #expect(ledger.recorded(StepKey("k104", request: "r"))?.paths == [[104]])
        ledger.forget(StepKey("k104", request: "r"))
        #expect(ledger.recorded(StepKey("k104", request: "r")) == nil)
    }
}
