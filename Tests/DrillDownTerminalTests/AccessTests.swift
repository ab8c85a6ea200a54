import DrillDownCore
import Testing
@testable import DrillDownTerminal

/// `browse --user`: the terminal UI asks the core's ``AccessView`` before every edit, like the web app.
@Suite("Terminal access")
struct TerminalAccessTests {
    func request(_ kind: EditRequest.Kind) -> EditRequest {
        EditRequest(serial: 1, kind: kind, done: "done", focus: nil, reports: nil, open: false, form: nil)
    }

    @Test("an edit inside the user's granted subtree is made; one outside it and undo are refused with the reason")
    func grants() async throws {
        let model = DocumentModel(document: EditableDocument(tree: seed000.tree))
        let policy = AccessPolicy(roles: ["ana": .viewer], grants: [Grant(user: "ana", path: "Item 1", role: .editor)])
        let access: @Sendable (any Source) -> AccessView = { policy.view(for: "ana", in: $0) }
        guard case .applied = await request(.changes([.updateTitle([0, 0], title: "Screen A2")])).run(on: model, access: access) else {
            Issue.record("the edit inside Item 1 was refused")
            return
        }
        guard case .failed(let error) = await request(.changes([.updateTitle([1, 0], title: "Nope")])).run(on: model, access: access) else {
            Issue.record("the edit outside Item 1 was made")
            return
        }
        #expect(error.message == "ana is a viewer at 'Item 2/Screen B' (1.0): changing it needs the editor role")
        #expect(model.versionedSource.source.title(of: model.versionedSource.source.node(at: [1, 0])!) == "Screen B")
        guard case .failed(let undo) = await request(.undo).run(on: model, access: access) else {
            Issue.record("undo was allowed to a user who may not change everything")
            return
        }
        #expect(undo.message.contains("may not undo"))
    }
}
