import Testing
@testable import DrillDownCore

/// Issue 9, item 18: a title path naming two siblings, and an action run on a row whose kind
/// does not offer it, are refused with a message instead of silently picking something.
@Suite("Loose matching: ambiguous title paths and actions a kind does not offer")
struct LooseMatchingTests {
    func duplicates() -> DocumentSource {
        let doc: Doc = .object([
            ("Title", .string("Root")),
            ("Rows", .array([row("Dup", [row("A")]), row("Other"), row("Dup", [row("B")]), row("dup"), row("Case"), row("CASE")])),
        ])
        return DocumentSource(tree: doc.tree)
    }

    @Test("a title matching two siblings is refused with both TreePaths")
    func ambiguousTitle() throws {
        let source = duplicates()
        do {
            _ = try source.resolve("Dup/A")
            Issue.record("expected an ambiguity error")
        } catch {
            #expect(error.candidates == [[0], [2]])
            #expect(error.message.contains("2 children titled 'Dup'"))
            #expect(error.message.contains("0, 2"))
        }
        // Without an exact match, two case-insensitive matches are ambiguous too.
        #expect(throws: PathError.self) { try source.resolve("case") }
        // One exact match wins over case-insensitive ones; TreePaths still reach every sibling.
        #expect(try source.resolve("Other") == source.node(at: [1]))
        #expect(try source.resolve("dup") == source.node(at: [3]))
        #expect(try source.resolve("2.0") == source.node(at: [2, 0]))
    }

    @Test("an action runs only on rows whose kind offers it")
    func actionsFollowKinds() async throws {
        let schema = try soundsSchema()
        let actions = try ActionSet(schema: schema)
        let doc = DocumentSource(tree: soundsDoc.tree)
        // A sound row offers play and ping (its buttons).
        #expect(actions.offeredActions(of: doc.node(at: [0, 3])!, in: doc) == ["play", "ping"])
        #expect(try actions.changes(for: "play", at: [0, 3], in: doc).count == 1)
        // A toggle row offers none; the message names its kind.
        do {
            _ = try actions.changes(for: "play", at: [0, 0], in: doc)
            Issue.record("play ran on a toggle")
        } catch {
            #expect(error.message.contains("kind 'toggle'"))
            #expect(error.message.contains("offers no actions"))
        }
        // The root, and a row with no kind, offer nothing.
        #expect(throws: EditError.self) { try actions.changes(for: "play", at: .root, in: doc) }
        #expect(throws: EditError.self) { try actions.changes(for: "ping", at: [0], in: doc) }
        // The shared model refuses the same way (the web's run route goes through it).
        let model = DocumentModel(document: EditableDocument(source: doc, schema: schema), actions: actions)
        await #expect(throws: EditError.self) { try await model.run("play", at: [0, 1]) }
        #expect(await model.document!.tree.isStructurallyEqual(to: doc.tree))
        #expect(await model.revision == 0)
    }
}
