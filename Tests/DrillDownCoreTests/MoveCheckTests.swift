import Testing
@testable import DrillDownCore

@Suite("MoveCheck: which destinations can receive moved rows, before the move")
struct MoveCheckTests {
    func presenter() throws -> Presenter { Presenter(source: DocumentSource(tree: soundsDoc.tree), schema: try soundsSchema()) }

    @Test("a row cannot move into itself or a row inside it")
    func ownSubtree() throws {
        let p = try presenter()
        #expect(MoveCheck.refusal(moving: [[0]], into: [0], in: p) == "a row cannot move into itself")
        #expect(MoveCheck.refusal(moving: [[0]], into: [0, 3], in: p) == "a row cannot move into a row inside it")
        #expect(MoveCheck.browseRefusal([0, 3], moving: [[0]], in: p) == "Inside a row being moved")
        #expect(MoveCheck.browseRefusal([0], moving: [[0]], in: p) == "Being moved")
    }

    @Test("a row whose schema kind names no children: key cannot hold rows; a plain row can")
    func schemaKinds() throws {
        let p = try presenter()
        let refusal = MoveCheck.refusal(moving: [[0, 3]], into: [0, 0], in: p)
        #expect(refusal?.contains("the schema gives that kind no children") == true)
        #expect(MoveCheck.browseRefusal([0, 0], moving: [[0, 3]], in: p) == "Cannot hold rows")
        #expect(MoveCheck.refusal(moving: [[0, 3]], into: [1], in: p) == nil)
        #expect(MoveCheck.refusal(moving: [[0, 3]], into: [1, 0], in: p) == nil)
        #expect(MoveCheck.refusal(moving: [[0, 3]], into: .root, in: p) == nil)
        #expect(MoveCheck.refusal(moving: [[0, 3]], into: [9], in: p) == "there is no row at TreePath 9")
        #expect(MoveCheck.ownOrder(ofChildrenOf: p.source.root, in: p.source) == nil)
    }
}
