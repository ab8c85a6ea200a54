import DrillDownCore
import Testing
@testable import DrillDownTerminal

/// Settings › Sounds (seed 004) with its schema: switches, a slider, rows with Play and Ping buttons.
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

func editableBrowser(_ doc: Doc = seed000, schema: Doc? = nil, width: Int = 80, height: Int = 16) throws -> EditingBrowser {
    let p = try presenter(doc, schema: schema)
    guard let source = p.source as? DocumentSource else { throw EditError("not a document") }
    let model = DocumentModel(document: EditableDocument(source: source, schema: p.schema), actions: try ActionSet(schema: p.schema))
    return EditingBrowser(browser: Browser(presenter: p, width: width, height: height, editable: true), model: model)
}

/// A browser with `--editable` and the model its edits go through, each edit run on the model as
/// the event loop runs it (``ModelLink``), with the keys that waited for it handled afterwards.
@dynamicMemberLookup
struct EditingBrowser {
    var browser: Browser
    let model: DocumentModel
    /// Edits run on the model since the last ``saves()``.
    var run = 0

    subscript<T>(dynamicMember path: KeyPath<Browser, T>) -> T { browser[keyPath: path] }

    /// Handles each key, then runs the edits it asked for.
    mutating func press(_ keys: Key...) async {
        for k in keys {
            browser.step(k)
            await settle()
        }
    }

    mutating func type(_ text: String) async {
        for c in text { await press(.character(c)) }
    }

    /// Runs the edits the browser asked for on the model and hands their outcomes back.
    mutating func settle() async {
        while let request = browser.effects.lazy.compactMap({ if case .edit(let r) = $0 { r } else { nil } }).first {
            browser.effects.removeAll { $0 == .edit(request) }
            run += 1
            let outcome = await request.run(on: model)
            browser.finish(request, outcome, source: model.versionedSource.source)
        }
    }

    /// The number of edits run on the model since the last call.
    mutating func saves() -> Int {
        defer { run = 0 }
        return run
    }

    /// The titles at the root, read from the model (what is saved).
    var savedRootTitles: [String] {
        let s = model.versionedSource.source
        return s.children(of: s.root).map { s.title(of: $0) }
    }

    func attribute(_ key: String, at path: TreePath) -> String? {
        let s = model.versionedSource.source
        return s.node(at: path).flatMap { s.attribute(key, of: $0)?.text }
    }

    func render() -> Frame { browser.render() }
    mutating func reload(_ presenter: Presenter) { browser.reload(presenter) }
    mutating func reloadFailed(_ description: String) { browser.reloadFailed(description) }
    mutating func resize(width: Int, height: Int) { browser.resize(width: width, height: height) }
}

extension Browser {
    /// The titles of the level shown.
    var levelTitles: [String] { source.children(of: navigator.top.node).map { source.title(of: $0) } }
    var selectedIndex: Int { positions[positions.count - 1].selected }
    var status: String { screen[height - 1] }
}

@Suite("Browser editing")
struct EditingTests {
    @Test("a adds a row after the selection from a title prompt, selects it and asks for a save; empty or Esc adds nothing")
    func add() async throws {
        var b = try editableBrowser()
        await b.press(.character("a"), .escape)
        #expect(b.prompt == nil)
        await b.press(.character("a"), .enter)
        #expect(b.status.contains("Nothing added"))
        #expect(b.saves() == 0)
        await b.press(.character("a"))
        #expect(b.status.contains("New row title:"))
        await b.type("Item 5")
        await b.press(.enter)
        #expect(b.savedRootTitles == ["Item 1", "Item 5", "Item 2", "Item 3", "Item 4"])
        #expect(b.levelTitles == b.savedRootTitles)
        #expect(b.selectedIndex == 1)
        #expect(b.saves() == 1)
        #expect(b.status.contains("Added “Item 5”"))
    }

    @Test("a on the detail of a row without children adds its first child and shows it in its new level")
    func addToEmptyLevel() async throws {
        var b = try editableBrowser(.object([("Rows", .array([row("Only")]))]))
        await b.press(.enter)
        #expect(b.navigator.top.isDetail)
        await b.press(.character("a"))
        await b.type("Child")
        await b.press(.enter)
        #expect(b.levelTitles == ["Child"])
        #expect(b.breadcrumbs.last == "Only")
    }

    @Test("r renames from a prompt prefilled with the title")
    func rename() async throws {
        var b = try editableBrowser()
        await b.press(.down, .character("r"))
        guard case .title(let p) = b.prompt else { Issue.record("no title prompt"); return }
        #expect(p.field.text == "Item 2")
        await b.press(.control("u"))
        await b.type("Second")
        await b.press(.enter)
        #expect(b.savedRootTitles == ["Item 1", "Second", "Item 3", "Item 4"])
        #expect(b.selectedIndex == 1)
        #expect(b.saves() == 1)
    }

    @Test("d asks for a confirmation: y deletes, any other key keeps the row")
    func deleteConfirms() async throws {
        var b = try editableBrowser()
        await b.press(.down, .character("d"))
        #expect(b.status.contains("Delete “Item 2” and everything below it? (y/n)"))
        await b.press(.character("n"))
        #expect(b.savedRootTitles.count == 4)
        #expect(b.saves() == 0)
        await b.press(.character("d"), .character("y"))
        #expect(b.savedRootTitles == ["Item 1", "Item 3", "Item 4"])
        #expect(b.selectedIndex == 1)
        #expect(b.saves() == 1)
        await b.press(.end, .character("d"), .character("y"))
        #expect(b.savedRootTitles == ["Item 1", "Item 3"])
        #expect(b.selectedIndex == 1, "deleting the last row selects the new last one")
    }

    @Test("J and K move the selected row and the selection follows it; the ends are reported")
    func move() async throws {
        var b = try editableBrowser()
        await b.press(.character("J"))
        #expect(b.savedRootTitles == ["Item 2", "Item 1", "Item 3", "Item 4"])
        #expect(b.selectedIndex == 1)
        await b.press(.character("J"), .character("J"))
        #expect(b.savedRootTitles == ["Item 2", "Item 3", "Item 4", "Item 1"])
        #expect(b.selectedIndex == 3)
        await b.press(.character("J"))
        #expect(b.status.contains("Already the last row"))
        await b.press(.character("K"))
        #expect(b.savedRootTitles == ["Item 2", "Item 3", "Item 1", "Item 4"])
        #expect(b.selectedIndex == 2)
    }

    @Test("u undoes and U or Ctrl-R redoes, each saved; nothing left to undo is reported")
    func undoRedo() async throws {
        var b = try editableBrowser()
        await b.press(.character("J"))
        _ = b.saves()
        await b.press(.character("u"))
        #expect(b.savedRootTitles == ["Item 1", "Item 2", "Item 3", "Item 4"])
        #expect(b.selectedIndex == 0)
        #expect(b.saves() == 1)
        await b.press(.character("U"))
        #expect(b.savedRootTitles == ["Item 2", "Item 1", "Item 3", "Item 4"])
        await b.press(.character("u"), .control("r"))
        #expect(b.savedRootTitles == ["Item 2", "Item 1", "Item 3", "Item 4"])
        await b.press(.character("u"), .character("u"))
        #expect(b.status.contains("Nothing to undo"))
    }

    @Test("Space flips a switch, + and - move a slider by its step within its bounds")
    func switchAndSlider() async throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        await b.press(.enter, .character(" "))
        #expect(b.attribute("enabled", at: [0, 0]) == "false")
        #expect(b.selectedIndex == 0)
        #expect(b.saves() == 1)
        await b.press(.down, .character("+"))
        #expect(b.attribute("volume", at: [0, 1]) == "65")
        await b.press(.character("-"), .character("-"))
        #expect(b.attribute("volume", at: [0, 1]) == "55")
        for _ in 0 ..< 12 { await b.press(.character("+")) }
        #expect(b.attribute("volume", at: [0, 1]) == "100")
        #expect(b.render().text.contains("[==========] 100"))
        await b.press(.up, .character("+"))
        #expect(b.status.contains("no slider"))
    }

    @Test("Enter on a row with buttons runs the first, 1…9 pick one; an action: row runs on Enter")
    func actions() async throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        await b.press(.enter, .down, .down)
        #expect(b.status.contains("↵ Play"))
        await b.press(.enter)
        #expect(b.attribute("plays", at: [0, 2]) == "1")
        #expect(b.navigator.top.isDetail == false, "Enter ran the button instead of opening the detail")
        await b.press(.character("1"))
        #expect(b.attribute("plays", at: [0, 2]) == "2")
        await b.press(.character("2"))
        #expect(b.attribute("lastPinged", at: [0, 2]) != nil)
        #expect(b.keyHints.contains("i detail"))
        await b.press(.character("i"))
        #expect(b.navigator.top.isDetail)
        #expect(b.render().text.contains("↵/1 Play  2 Ping"))
        await b.press(.enter)
        #expect(b.attribute("plays", at: [0, 2]) == "3", "Enter on a detail with buttons presses the first")
        #expect(b.navigator.top.isDetail)
        await b.press(.backspace, .down, .down, .enter)
        #expect(b.attribute("plays", at: [0, 4]) == "1")
    }

    @Test("an edit the core refuses is shown in the status line and changes nothing")
    func errorsInStatus() async throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        await b.press(.enter, .down, .down, .down, .enter)
        #expect(b.message?.isError == true)
        #expect(b.status.contains("not a number"))
        #expect(b.saves() == 1, "the model refused the step")
        #expect(await b.model.store.canUndo == false)
        #expect(await b.model.revision == 0, "nothing was published")
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

    @Test("a reload keeps the current path and selection")
    func reloadKeepsPlace() async throws {
        var b = try editableBrowser()
        await b.press(.end, .enter, .enter)
        #expect(b.breadcrumbs == ["Root", "Item 4", "Screen G"])
        await b.press(.character("a"))
        await b.type("New")
        await b.press(.enter)
        var changed = EditableDocument(tree: seed000.tree)
        try changed.apply(.updateTitle([0], title: "First"))
        try changed.apply(.insert(NewNode(title: "Zero"), parent: .root, index: 0))
        b.reload(Presenter(source: changed.source))
        #expect(b.breadcrumbs == ["Root", "Item 4", "Screen G"])
        #expect(b.levelTitles == ["Screen H"])
        #expect(b.selectedIndex == 0, "the added row is gone: the row at its place is selected")
        #expect(b.status.contains("Reloaded"))
        try changed.apply(.updateTitle([4], title: "Fourth"))
        b.reload(Presenter(source: changed.source))
        #expect(b.breadcrumbs == ["Root", "Fourth", "Screen G"], "a renamed row is followed by its place")
    }

    @Test("a reload that removed the shown level falls back to the nearest row still there")
    func reloadFallsBack() async throws {
        var b = try editableBrowser()
        await b.press(.end, .enter)
        var changed = EditableDocument(tree: seed000.tree)
        try changed.apply(.delete([3]))
        b.reload(Presenter(source: changed.source))
        #expect(b.breadcrumbs == ["Root"])
        #expect(b.selectedIndex == 2)
        await b.press(.character("d"))
        b.reload(Presenter(source: changed.source))
        #expect(b.prompt == nil, "a confirmation for a path of the old tree is closed")
        #expect(b.status.contains("prompt was closed"))
    }

    @Test("in outline mode edits keep the expanded rows and select the changed row")
    func outlineEdits() async throws {
        var b = try editableBrowser()
        await b.press(.character("o"), .down, .character(" "))
        #expect(b.outline.visibleCount == 5)
        await b.press(.character("J"))
        #expect(b.savedRootTitles == ["Item 1", "Item 3", "Item 2", "Item 4"])
        #expect(b.outline.node(atRow: b.outlinePosition.selected).map { b.source.title(of: $0) } == "Item 2")
        #expect(b.outline.visibleCount == 5, "Item 2 stays expanded")
        await b.press(.down, .character("a"))
        await b.type("Screen B2")
        await b.press(.enter)
        #expect(b.outline.node(atRow: b.outlinePosition.selected).map { b.source.path(of: $0) } == [2, 1])
        #expect(b.mode == .outline)
    }

    @Test("keys pressed while an edit is under way wait for it, then act on the data it left")
    func keysWaitForTheEdit() async throws {
        var b = try editableBrowser()
        b.browser.step(.character("J"))
        b.browser.step(.character("J"))
        b.browser.step(.down)
        #expect(b.selectedIndex == 0, "the keys after J are held")
        #expect(b.editor?.pending != nil)
        await b.settle()
        #expect(b.savedRootTitles == ["Item 2", "Item 3", "Item 1", "Item 4"], "the second J moved the row the first one left")
        #expect(b.selectedIndex == 3, "then ↓ moved on from it")
        #expect(b.saves() == 2)
    }

    @Test("a step the model refuses is reported in words and the held keys still act")
    func refusedStep() async throws {
        var b = try editableBrowser()
        b.browser.handle(.character("K"))
        #expect(b.status.contains("Already the first row"), "decided by the browser, no request")
        b.browser.finish(EditRequest(serial: 1, kind: .undo, done: "Undid", open: false), .failed(EditError("nothing happens")), source: b.source)
        #expect(!b.status.contains("nothing happens"), "an outcome for no request under way is ignored")
        b.browser.request(.changes([.delete([7])]), done: "Deleted")
        await b.settle()
        #expect(b.message?.isError == true)
        #expect(b.editor?.pending == nil)
        b.browser.request(.changes([.delete([7])]), done: "Deleted")
        b.browser.step(.end)
        await b.settle()
        #expect(b.selectedIndex == 3, "the key held behind the refused step acted")
        #expect(b.savedRootTitles.count == 4)
    }
}

