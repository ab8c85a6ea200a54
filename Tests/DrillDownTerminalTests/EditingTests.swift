import DrillDownCore
import Testing
@testable import DrillDownTerminal

/// Settings › Sounds (the Sounds example) with its schema: switches, a slider, rows with Play and Ping buttons.
let sounds: Doc = .object([
    ("Title", .string("Settings")),
    ("Rows", .array([
        row("Sounds", [
            row("Vibrate on Ring", [], [("kind", .string("toggle")), ("enabled", .bool(true))]),
            row("Ringer and Alerts", [], [("kind", .string("volume")), ("volume", .int(60))]),
            row("Ringtone", [], [("kind", .string("sound")), ("file", .string("Opening.m4r")), ("plays", .int(0))]),
            row("Broken", [], [("kind", .string("sound")), ("plays", .string("many"))]),
            row("Chime", [], [("kind", .string("chime")), ("plays", .int(0))]),
        ]),
    ])),
])

let soundsSchema: Doc = .object([
    ("kinds", .object([
        ("toggle", .object([("select", .string("none")), ("controls", .array([.object([("switch", .string("enabled"))])]))])),
        ("volume", .object([
            ("select", .string("none")),
            ("controls", .array([.object([("slider", .string("volume")), ("min", .int(0)), ("max", .int(100)), ("step", .int(5))])])),
        ])),
        ("sound", .object([
            ("select", .string("detail")),
            ("controls", .array([
                .object([("button", .string("Play")), ("action", .string("play"))]),
                .object([("button", .string("Ping")), ("action", .string("ping"))]),
            ])),
        ])),
        ("chime", .object([("select", .string("action:play"))])),
    ])),
    ("actions", .object([
        ("play", .object([("increment", .string("plays"))])),
        ("ping", .object([("setNow", .string("lastPinged"))])),
    ])),
])

func editableBrowser(_ doc: Doc = seed000, schema: Doc? = nil, width: Int = 80, height: Int = 16) throws -> Browser {
    let p = try presenter(doc, schema: schema)
    return Browser(presenter: p, width: width, height: height, actions: try ActionSet(schema: p.schema))
}

extension Browser {
    /// The titles of the level shown.
    var levelTitles: [String] { source.children(of: navigator.top.node).map { source.title(of: $0) } }
    /// The titles at the root, read from the editor's document (what would be saved).
    var savedRootTitles: [String] {
        let s = editor!.document!.source
        return s.children(of: s.root).map { s.title(of: $0) }
    }
    var selectedIndex: Int { positions[positions.count - 1].selected }
    var status: String { screen[height - 1] }
    mutating func saves() -> Int { takeEffects().filter { $0 == .save }.count }
    func attribute(_ key: String, at path: TreePath) -> String? {
        let s = editor!.document!.source
        return s.node(at: path).flatMap { s.attribute(key, of: $0)?.text }
    }
}

@Suite("Browser editing")
struct EditingTests {
    @Test("a adds a row after the selection from a title prompt, selects it and asks for a save; empty or Esc adds nothing")
    func add() throws {
        var b = try editableBrowser()
        b.press(.character("a"), .escape)
        #expect(b.prompt == nil)
        b.press(.character("a"), .enter)
        #expect(b.status.contains("Nothing added"))
        #expect(b.saves() == 0)
        b.press(.character("a"))
        #expect(b.status.contains("New row title:"))
        b.type("Item 5")
        b.press(.enter)
        #expect(b.savedRootTitles == ["Item 1", "Item 5", "Item 2", "Item 3", "Item 4"])
        #expect(b.levelTitles == b.savedRootTitles)
        #expect(b.selectedIndex == 1)
        #expect(b.saves() == 1)
        #expect(b.status.contains("Added “Item 5”"))
    }

    @Test("a on the detail of a row without children adds its first child and shows it in its new level")
    func addToEmptyLevel() throws {
        var b = try editableBrowser(.object([("Rows", .array([row("Only")]))]))
        b.press(.enter)
        #expect(b.navigator.top.isDetail)
        b.press(.character("a"))
        b.type("Child")
        b.press(.enter)
        #expect(b.levelTitles == ["Child"])
        #expect(b.breadcrumbs.last == "Only")
    }

    @Test("r renames from a prompt prefilled with the title")
    func rename() throws {
        var b = try editableBrowser()
        b.press(.down, .character("r"))
        guard case .title(let p) = b.prompt else { Issue.record("no title prompt"); return }
        #expect(p.field.text == "Item 2")
        b.press(.control("u"))
        b.type("Second")
        b.press(.enter)
        #expect(b.savedRootTitles == ["Item 1", "Second", "Item 3", "Item 4"])
        #expect(b.selectedIndex == 1)
        #expect(b.saves() == 1)
    }

    @Test("d asks for a confirmation: y deletes, any other key keeps the row")
    func deleteConfirms() throws {
        var b = try editableBrowser()
        b.press(.down, .character("d"))
        #expect(b.status.contains("Delete “Item 2” and everything below it? (y/n)"))
        b.press(.character("n"))
        #expect(b.savedRootTitles.count == 4)
        #expect(b.saves() == 0)
        b.press(.character("d"), .character("y"))
        #expect(b.savedRootTitles == ["Item 1", "Item 3", "Item 4"])
        #expect(b.selectedIndex == 1)
        #expect(b.saves() == 1)
        b.press(.end, .character("d"), .character("y"))
        #expect(b.savedRootTitles == ["Item 1", "Item 3"])
        #expect(b.selectedIndex == 1, "deleting the last row selects the new last one")
    }

    @Test("J and K move the selected row and the selection follows it; the ends are reported")
    func move() throws {
        var b = try editableBrowser()
        b.press(.character("J"))
        #expect(b.savedRootTitles == ["Item 2", "Item 1", "Item 3", "Item 4"])
        #expect(b.selectedIndex == 1)
        b.press(.character("J"), .character("J"))
        #expect(b.savedRootTitles == ["Item 2", "Item 3", "Item 4", "Item 1"])
        #expect(b.selectedIndex == 3)
        b.press(.character("J"))
        #expect(b.status.contains("Already the last row"))
        b.press(.character("K"))
        #expect(b.savedRootTitles == ["Item 2", "Item 3", "Item 1", "Item 4"])
        #expect(b.selectedIndex == 2)
    }

    @Test("u undoes and U or Ctrl-R redoes, each saved; nothing left to undo is reported")
    func undoRedo() throws {
        var b = try editableBrowser()
        b.press(.character("J"))
        _ = b.saves()
        b.press(.character("u"))
        #expect(b.savedRootTitles == ["Item 1", "Item 2", "Item 3", "Item 4"])
        #expect(b.selectedIndex == 0)
        #expect(b.saves() == 1)
        b.press(.character("U"))
        #expect(b.savedRootTitles == ["Item 2", "Item 1", "Item 3", "Item 4"])
        b.press(.character("u"), .control("r"))
        #expect(b.savedRootTitles == ["Item 2", "Item 1", "Item 3", "Item 4"])
        b.press(.character("u"), .character("u"))
        #expect(b.status.contains("Nothing to undo"))
    }

    @Test("Space flips a switch, + and - move a slider by its step within its bounds")
    func switchAndSlider() throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        b.press(.enter, .character(" "))
        #expect(b.attribute("enabled", at: [0, 0]) == "false")
        #expect(b.selectedIndex == 0)
        #expect(b.saves() == 1)
        b.press(.down, .character("+"))
        #expect(b.attribute("volume", at: [0, 1]) == "65")
        b.press(.character("-"), .character("-"))
        #expect(b.attribute("volume", at: [0, 1]) == "55")
        for _ in 0 ..< 12 { b.press(.character("+")) }
        #expect(b.attribute("volume", at: [0, 1]) == "100")
        #expect(b.render().text.contains("[==========] 100"))
        b.press(.up, .character("+"))
        #expect(b.status.contains("no slider"))
    }

    @Test("Enter on a row with buttons runs the first, 1…9 pick one; an action: row runs on Enter")
    func actions() throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        b.press(.enter, .down, .down)
        #expect(b.status.contains("↵ Play"))
        b.press(.enter)
        #expect(b.attribute("plays", at: [0, 2]) == "1")
        #expect(b.navigator.top.isDetail == false, "Enter ran the button instead of opening the detail")
        b.press(.character("1"))
        #expect(b.attribute("plays", at: [0, 2]) == "2")
        b.press(.character("2"))
        #expect(b.attribute("lastPinged", at: [0, 2]) != nil)
        #expect(b.keyHints.contains("i detail"))
        b.press(.character("i"))
        #expect(b.navigator.top.isDetail)
        #expect(b.render().text.contains("↵/1 Play  2 Ping"))
        b.press(.enter)
        #expect(b.attribute("plays", at: [0, 2]) == "3", "Enter on a detail with buttons presses the first")
        #expect(b.navigator.top.isDetail)
        b.press(.backspace, .down, .down, .enter)
        #expect(b.attribute("plays", at: [0, 4]) == "1")
    }

    @Test("an edit the core refuses is shown in the status line and changes nothing")
    func errorsInStatus() throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        b.press(.enter, .down, .down, .down, .enter)
        #expect(b.message?.isError == true)
        #expect(b.status.contains("not a number"))
        #expect(b.saves() == 0)
        #expect(b.editor?.document?.canUndo == false)
    }

    @Test("without an editor every edit key says read-only and Enter still opens")
    func readOnly() throws {
        var b = try browser(sounds)
        for key in [Key.character("a"), .character("r"), .character("d"), .character("J"), .character("K"), .character("u"), .character("U")] {
            b.press(key)
            #expect(b.status.contains(Browser.readOnlyMessage))
        }
        #expect(b.takeEffects().isEmpty)
        b.press(.enter)
        #expect(b.breadcrumbs.last == "Sounds")
    }

    @Test("a reload keeps the current path and selection and drops the undo history")
    func reloadKeepsPlace() throws {
        var b = try editableBrowser()
        b.press(.end, .enter, .enter)
        #expect(b.breadcrumbs == ["Root", "Item 4", "Screen G"])
        b.press(.character("a"))
        b.type("New")
        b.press(.enter)
        var changed = EditableDocument(tree: seed000.tree)
        try changed.apply(.updateTitle([0], title: "First"))
        try changed.apply(.insert(NewNode(title: "Zero"), parent: .root, index: 0))
        b.reload(Presenter(source: changed.source))
        #expect(b.breadcrumbs == ["Root", "Item 4", "Screen G"])
        #expect(b.levelTitles == ["Screen H"])
        #expect(b.selectedIndex == 0, "the added row is gone: the row at its place is selected")
        #expect(b.editor?.document?.canUndo == false)
        #expect(b.status.contains("Reloaded"))
        try changed.apply(.updateTitle([4], title: "Fourth"))
        b.reload(Presenter(source: changed.source))
        #expect(b.breadcrumbs == ["Root", "Fourth", "Screen G"], "a renamed row is followed by its place")
    }

    @Test("a reload that removed the shown level falls back to the nearest row still there")
    func reloadFallsBack() throws {
        var b = try editableBrowser()
        b.press(.end, .enter)
        var changed = EditableDocument(tree: seed000.tree)
        try changed.apply(.delete([3]))
        b.reload(Presenter(source: changed.source))
        #expect(b.breadcrumbs == ["Root"])
        #expect(b.selectedIndex == 2)
        b.press(.character("d"))
        b.reload(Presenter(source: changed.source))
        #expect(b.prompt == nil, "a confirmation for a path of the old tree is closed")
        #expect(b.status.contains("prompt was closed"))
    }

    @Test("in outline mode edits keep the expanded rows and select the changed row")
    func outlineEdits() throws {
        var b = try editableBrowser()
        b.press(.character("o"), .down, .character(" "))
        #expect(b.outline.visibleCount == 5)
        b.press(.character("J"))
        #expect(b.savedRootTitles == ["Item 1", "Item 3", "Item 2", "Item 4"])
        #expect(b.outline.node(atRow: b.outlinePosition.selected).map { b.source.title(of: $0) } == "Item 2")
        #expect(b.outline.visibleCount == 5, "Item 2 stays expanded")
        b.press(.down, .character("a"))
        b.type("Screen B2")
        b.press(.enter)
        #expect(b.outline.node(atRow: b.outlinePosition.selected).map { b.source.path(of: $0) } == [2, 1])
        #expect(b.mode == .outline)
    }
}
