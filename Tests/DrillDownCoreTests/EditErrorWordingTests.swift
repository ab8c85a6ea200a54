import Testing
@testable import DrillDownCore

@Suite("Edit errors name value kinds with the right article")
struct EditErrorWordingTests {
    @Test("setting an attribute that holds a list says 'holds an array'")
    func holdsAnArray() {
        var doc = EditableDocument(source: DocumentSource(tree: Doc.object([("Rows", .array([
            row("Song", [], [("tags", .array([.string("live")]))]),
        ]))]).tree))
        #expect {
            try doc.apply(.setAttribute([0], key: "tags", value: Scalar(.string, "studio")))
        } throws: { error in
            (error as? EditError)?.message.contains("'tags' holds an array; only scalar attributes can be set") ?? false
        }
    }
}
