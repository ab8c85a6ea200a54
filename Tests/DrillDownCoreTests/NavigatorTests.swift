import Testing
@testable import DrillDownCore

@Suite("Navigator: the drill-down rules of Examples/Data.plist")
struct NavigatorTests {
    let presenter = Presenter(source: seedSource())

    @Test("the root lists Item 1–4 under the title Root")
    func rootLevel() {
        let nav = Navigator(presenter: presenter)
        #expect(nav.title == "Root")
        #expect(nav.backLabel == nil)
        #expect(presenter.rows(of: nav.top.node).map(\.title) == ["Item 1", "Item 2", "Item 3", "Item 4"])
        #expect(presenter.rows(of: nav.top.node).allSatisfy { $0.drills })
    }

    @Test("Item 4 › Screen G › H › I › J drills level by level, then J opens its detail, and back returns level by level")
    func drillAndBack() {
        var nav = Navigator(presenter: presenter)
        let first = nav.select(3)
        #expect(first == .pushedLevel(nav.presenter.source.node(at: [3])!))
        var titles = [nav.title]
        var backs = [nav.backLabel]
        for _ in 0 ..< 4 {
            nav.select(0)
            titles.append(nav.title)
            backs.append(nav.backLabel)
        }
        #expect(titles == ["Item 4", "Screen G", "Screen H", "Screen I", "Screen J"])
        #expect(backs == ["Root", "Item 4", "Screen G", "Screen H", "Screen I"])
        #expect(nav.top.isDetail)
        #expect(nav.path == [3, 0, 0, 0, 0])
        #expect(nav.breadcrumbs.map(\.title) == ["Root", "Item 4", "Screen G", "Screen H", "Screen I", "Screen J"])
        var popped: [String] = []
        while nav.pop() { popped.append(nav.title) }
        #expect(popped == ["Screen I", "Screen H", "Screen G", "Item 4", "Root"])
    }

    @Test("a deep link opens a level or detail directly with the whole back chain")
    func deepLink() throws {
        var nav = Navigator(presenter: presenter)
        let source = presenter.source
        nav.open(try source.resolve("3.0.0"))
        #expect(nav.title == "Screen H")
        #expect(nav.backLabel == "Screen G")
        #expect(!nav.top.isDetail)
        nav.open(try source.resolve("Item 4/Screen G/Screen H/Screen I/Screen J"))
        #expect(nav.top.isDetail)
        #expect(nav.backLabel == "Screen I")
        #expect(nav.stack.count == 6)
        nav.popToRoot()
        #expect(nav.title == "Root")
    }

    @Test("selecting past the end or on a detail does nothing")
    func outOfRange() {
        var nav = Navigator(presenter: presenter)
        let outcome = nav.select(9)
        #expect(outcome == .none)
        #expect(nav.stack.count == 1)
        let popped = nav.pop()
        #expect(!popped)
    }

    @Test("select: detail opens a detail even with children; action rows run actions; the accessory opens detail")
    func selectBehaviours() throws {
        var schema = Schema()
        var item = Template(kind: "item")
        item.select = .detail
        var play = Template(kind: "song")
        play.select = .action("play")
        schema.kinds = [item, play]
        let doc: Doc = .object([("Rows", .array([
            row("Folder", [row("x")], [("kind", .string("item"))]),
            row("Song", [], [("kind", .string("song"))]),
            row("Plain", [row("y")]),
        ]))])
        let presenter = Presenter(source: DocumentSource(tree: doc.tree), schema: schema)
        var nav = Navigator(presenter: presenter)
        let root = presenter.source.root
        let a = nav.select(0)
        #expect(a == .pushedDetail(presenter.source.children(of: root)[0]))
        nav.pop()
        let b = nav.select(1)
        #expect(b == .action("play", presenter.source.children(of: root)[1]))
        #expect(nav.stack.count == 1)
        nav.showDetail(2)
        #expect(nav.top.isDetail)
        #expect(nav.title == "Plain")
    }
}
