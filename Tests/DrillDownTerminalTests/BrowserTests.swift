import DrillDownCore
import Testing

@testable import DrillDownTerminal

@Suite("Drill-down mode")
struct DrillDownModeTests {
    @Test("Examples/Data.plist: Item 4 › Screen G › H › I › J › detail and back, with titles and breadcrumbs on every screen")
    func seedPath() throws {
        var b = try browser()
        #expect(b.screen[0].contains("Root"))
        #expect(b.screen[2].contains("Item 1"))
        #expect(b.screen[5].contains("Item 4"))
        #expect(b.screen[5].hasSuffix("›"))
        b.press(.end)
        #expect(b.screen.last!.contains("4/4"))
        #expect(b.screen.last!.contains(" 3 "))
        var expected = ["Root"]
        for title in ["Item 4", "Screen G", "Screen H", "Screen I"] {
            b.press(.enter)
            expected.append(title)
            let s = b.screen
            #expect(s[0].contains(title))
            #expect(s[0].contains("‹ \(expected[expected.count - 2])"))
            #expect(s[1].trimmingCharacters(in: .whitespaces) == expected.joined(separator: " › "))
        }
        #expect(b.screen[2].contains("Screen J"))
        #expect(!b.screen[2].hasSuffix("›"))
        b.press(.enter)
        #expect(b.navigator.top.isDetail)
        #expect(b.screen[0].contains("Screen J"))
        #expect(b.screen[0].contains("‹ Screen I"))
        #expect(b.screen[1].contains("Root › Item 4 › Screen G › Screen H › Screen I › Screen J"))
        #expect(b.screen.last!.contains("3.0.0.0.0"))
        for title in ["Screen I", "Screen H", "Screen G", "Item 4", "Root"] {
            b.press(.backspace)
            #expect(b.screen[0].contains(title))
            #expect(b.screen[1].trimmingCharacters(in: .whitespaces).hasSuffix(title))
        }
        #expect(b.navigator.stack.count == 1)
        #expect(b.positions[0].selected == 3)
    }

    @Test("vi keys and arrows move, drill and go back the same way")
    func viKeys() throws {
        var b = try browser()
        b.press(.character("j"), .character("j"), .character("l"))
        #expect(b.title == "Item 3")
        b.press(.character("h"), .character("k"), .right)
        #expect(b.title == "Item 2")
        b.press(.left)
        #expect(b.title == "Root")
        b.press(.character("G"))
        #expect(b.positions[0].selected == 3)
        b.press(.character("g"))
        #expect(b.positions[0].selected == 0)
    }

    @Test("going back restores the previous level's selection and scroll position")
    func restoresScroll() throws {
        var b = try browser(wideLevel(500), width: 50, height: 12)
        for _ in 0 ..< 3 { b.press(.pageDown) }
        let before = b.positions.last!
        #expect(before.scroll > 0)
        b.press(.enter)
        #expect(b.title == "row \(before.selected)")
        b.press(.backspace)
        #expect(b.positions.last! == before)
        #expect(b.screen.contains { $0.contains("row \(before.selected)") })
    }

    @Test("a 100 000-row level renders only its visible rows and jumps to the end instantly")
    func hugeLevel() throws {
        var b = try browser(wideLevel(100_000), width: 80, height: 24)
        b.press(.end)
        let s = b.screen
        #expect(s.last!.contains("100000/100000"))
        #expect(s.last!.contains("99999"))
        #expect(s[s.count - 2].contains("row 99999"))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0 ..< 50 {
                b.press(.pageUp)
                _ = b.render()
            }
        }
        #expect(elapsed < .seconds(2))
    }

    @Test("y shows the current row's TreePath and title path and asks to copy it")
    func copyPath() throws {
        var b = try browser()
        b.press(.end, .enter, .character("y"))
        #expect(b.takeEffects() == [.copy("3.0")])
        #expect(b.screen.last!.contains("Path 3.0 · Item 4/Screen G"))
    }

    @Test(": goes to a TreePath or a title path, and reports a path that names no node")
    func goTo() throws {
        var b = try browser()
        b.press(.character(":"))
        b.type("3.0.0")
        #expect(b.screen.last!.contains("3.0.0"))
        b.press(.enter)
        #expect(b.title == "Screen H")
        #expect(b.navigator.backLabel == "Screen G")
        b.press(.character(":"))
        b.type("Item 2/Screen B")
        b.press(.enter)
        #expect(b.title == "Screen B")
        b.press(.backspace)
        #expect(b.title == "Item 2")
        b.press(.character(":"))
        b.type("9.9")
        b.press(.enter)
        #expect(b.message?.isError == true)
        #expect(b.screen.last!.contains("no node at TreePath 9.9"))
        b.press(.character(":"))
        b.type("Item 4/Screen G/Screen H/Screen I/Screen J")
        b.press(.enter)
        #expect(b.navigator.top.isDetail)
        #expect(b.title == "Screen J")
    }

    @Test("Esc cancels a prompt without moving")
    func escCancels() throws {
        var b = try browser()
        b.press(.character(":"))
        b.type("3")
        b.press(.escape)
        #expect(b.prompt == nil)
        #expect(b.title == "Root")
    }

    @Test("q and Ctrl-C quit")
    func quit() throws {
        var b = try browser()
        b.press(.character("q"))
        #expect(b.isFinished)
        var c = try browser()
        c.press(.control("c"))
        #expect(c.isFinished)
    }

    @Test("an empty document shows an empty root level")
    func empty() throws {
        var b = try browser(.object([]))
        b.press(.enter, .down, .backspace)
        #expect(b.screen[2].contains("(empty)"))
        #expect(b.screen.last!.contains("0/0"))
    }
}

@Suite("Outline mode")
struct OutlineModeTests {
    @Test("o shows the tree; Space and →/← expand and collapse with indentation and markers")
    func expandCollapse() throws {
        var b = try browser()
        b.press(.character("o"))
        #expect(b.mode == .outline)
        #expect(b.screen[2].contains("▸ Item 1"))
        b.press(.end, .character(" "))
        var s = b.screen
        #expect(s[5].contains("▾ Item 4"))
        #expect(s[6].contains("  ▸ Screen G"))
        b.press(.down, .right)
        s = b.screen
        #expect(s[7].contains("    ▸ Screen H"))
        b.press(.right)
        #expect(b.outlinePosition.selected == 5)
        b.press(.left)
        #expect(b.outlinePosition.selected == 4)
        b.press(.left)
        #expect(b.screen[6].contains("▸ Screen G"))
        b.press(.left)
        #expect(b.outlinePosition.selected == 3)
        b.press(.left)
        #expect(b.outline.visibleCount == 4)
    }

    @Test("E expands everything, C collapses everything, and the cursor stays on its node")
    func all() throws {
        var b = try browser()
        b.press(.character("o"), .character("E"))
        #expect(b.outline.visibleCount == 4 + 1 + 2 + 3 + 4)
        b.press(.end)
        #expect(b.screen.last!.contains("3.0.0.0.0"))
        b.press(.character("C"))
        #expect(b.outline.visibleCount == 4)
        #expect(b.outlinePosition.selected == 3)
    }

    @Test("Enter on a leaf opens its detail over the outline; Backspace returns")
    func leafDetail() throws {
        var b = try browser()
        b.press(.character("o"), .down, .character(" "), .down, .right, .down, .enter)
        #expect(b.outlineDetail != nil)
        #expect(b.title == "Screen C")
        b.press(.backspace)
        #expect(b.outlineDetail == nil)
        #expect(b.title == "Root")
    }

    @Test("switching modes keeps the current node")
    func sync() throws {
        var b = try browser()
        b.press(.end, .enter, .enter)
        #expect(b.title == "Screen G")
        b.press(.character("o"))
        #expect(b.screen.last!.contains("6/6  3.0.0"))
        b.press(.right, .down)
        #expect(b.screen.last!.contains("7/7  3.0.0.0"))
        b.press(.character("o"))
        #expect(b.mode == .drillDown)
        #expect(b.title == "Screen H")
        #expect(b.navigator.breadcrumbs.map(\.title) == ["Root", "Item 4", "Screen G", "Screen H"])
    }
}

@Suite("Columns, detail and search")
struct OtherModeTests {
    @Test("c shows Miller columns of the path plus a preview, as many as fit")
    func columns() throws {
        var b = try browser(width: 120, height: 12)
        b.press(.end, .enter, .character("c"))
        let s = b.screen
        #expect(s[2].contains("Item 1"))
        #expect(s[2].contains("Screen G"))
        #expect(s[2].contains("Screen H"))
        #expect(s[2].filter { $0 == "│" }.count == 2)
        b.press(.right, .right, .right)
        let deep = b.screen
        #expect(deep[0].contains("Screen I"))
        #expect(deep[2].contains("Screen J"))
        #expect(!deep[2].contains("Item 1"))
        var narrow = try browser(width: 40, height: 10)
        narrow.press(.end, .enter, .character("c"))
        #expect(narrow.screen[2].filter { $0 == "│" }.count == 0)
        #expect(narrow.screen[2].contains("Screen H"))
    }

    @Test("the detail pane formats attributes by the template and wraps long values")
    func detail() throws {
        let long = String(repeating: "word ", count: 80)
        let doc: Doc = .object([
            ("Rows", .array([row("Song", [], [("kind", .string("song")), ("length", .int(343)), ("notes", .string(long))])]))
        ])
        let schema: Doc = .object([
            ("kinds", .object([("song", .object([("subtitle", .string("{length|duration}"))]))]))
        ])
        var b = Browser(presenter: try presenter(doc, schema: schema), width: 40, height: 12)
        #expect(b.screen[2].contains("5:43"))
        b.press(.enter)
        let s = b.screen
        #expect(s.contains { $0.contains("Length") && $0.contains("5:43") })
        let notes = s.filter { $0.contains("word") }
        #expect(notes.count > 2)
        for line in s { #expect(DisplayWidth.of(line) <= 40) }
        b.press(.end)
        #expect(b.positions.last!.scroll > 0)
    }

    @Test("controls show their current values read-only")
    func controls() throws {
        let doc: Doc = .object([
            ("Rows", .array([
                row("Vibrate", [], [("kind", .string("toggle")), ("enabled", .bool(true))]),
                row("Ringer", [], [("kind", .string("volume")), ("volume", .int(50))]),
            ]))
        ])
        let schema: Doc = .object([
            ("kinds", .object([
                ("toggle", .object([("select", .string("none")), ("controls", .array([.object([("switch", .string("enabled"))])]))])),
                ("volume", .object([("controls", .array([.object([("slider", .string("volume")), ("min", .int(0)), ("max", .int(100))])]))])),
            ]))
        ])
        var b = Browser(presenter: try presenter(doc, schema: schema), width: 60, height: 10)
        #expect(b.screen[2].contains("[x]"))
        #expect(b.screen[3].contains("[=====-----] 50"))
        b.press(.enter)
        #expect(b.screen.last!.contains("opens nothing"))
    }

    @Test("/ searches as you type, Enter opens a hit, n/N go through the matches, Esc cancels")
    func search() throws {
        var b = try browser()
        b.press(.character("/"))
        b.type("screen")
        let s = b.screen
        #expect(s.last!.contains("/screen"))
        #expect(s.last!.contains("10 matches"))
        #expect(s[2].contains("Screen A"))
        #expect(s[2].contains("Item 1"))
        b.type(" j")
        #expect(b.screen.last!.contains("1 match"))
        b.press(.enter)
        #expect(b.navigator.top.isDetail)
        #expect(b.title == "Screen J")
        b.press(.character("/"))
        b.type("item")
        b.press(.down, .enter)
        #expect(b.title == "Item 2")
        b.press(.character("n"))
        #expect(b.title == "Root")
        #expect(b.positions.last!.selected == 2)
        #expect(b.screen.last!.contains("Match 3/4"))
        b.press(.character("N"), .character("N"))
        #expect(b.positions.last!.selected == 0)
        b.press(.character("/"))
        b.type("zzz")
        #expect(b.screen.last!.contains("no match"))
        b.press(.escape)
        #expect(b.prompt == nil)
    }

    @Test("typing asks for a background search and shows “searching…” until its hits arrive")
    func backgroundSearch() throws {
        var b = try browser()
        b.handle(.character("/"))
        b.handle(.character("i"))
        b.handle(.character("t"))
        #expect(b.takeEffects() == [.search("i"), .search("it")])
        #expect(b.screen.last!.contains("searching…"))
        let items = b.presenter.source.find(SearchQuery("it"))
        b.receiveSearch("it", hits: items.hits, total: items.total)
        #expect(b.screen.last!.contains("4 matches"))
        b.handle(.character("e"))
        b.receiveSearch("it", hits: items.hits, total: items.total)
        #expect(b.screen.last!.contains("searching…"))
        b.handle(.enter)  // Enter before the search for "ite" finished runs it at once
        #expect(b.title == "Item 1")
        b.receiveSearch("ite", hits: [], total: 0)
        #expect(b.prompt == nil)
    }

    @Test("search in outline mode reveals the hit inside the tree")
    func outlineSearch() throws {
        var b = try browser()
        b.press(.character("o"), .character("/"))
        b.type("screen i")
        b.press(.enter)
        #expect(b.mode == .outline)
        #expect(b.outline.isExpanded(b.presenter.source.node(at: [3, 0, 0])!))
        #expect(b.screen.last!.contains("3.0.0.0"))
    }
}

@Suite("Layout at any size")
struct LayoutTests {
    @Test("40×10 and 300×100 both show title, rows and status, never wider than the screen")
    func sizes() throws {
        for (w, h) in [(40, 10), (300, 100), (80, 24)] {
            var b = try browser(width: w, height: h)
            b.press(.end, .enter, .enter)
            for mode in ["drill", "outline", "columns"] {
                if mode == "outline" { b.press(.character("o")) }
                if mode == "columns" { b.press(.character("o"), .character("c")) }
                let frame = b.render()
                #expect(frame.width == w && frame.height == h)
                #expect(frame.lines.allSatisfy { DisplayWidth.of($0) == w })
                #expect(frame.lines[1].contains("Screen G") || frame.lines[1].contains("Screen H"))
                #expect(frame.lines[h - 1].contains("3.0"))
            }
        }
    }

    @Test("resizing keeps the selection visible")
    func resize() throws {
        var b = try browser(wideLevel(300), width: 80, height: 40)
        for _ in 0 ..< 30 { b.press(.down) }
        b.resize(width: 40, height: 10)
        #expect(b.screen.contains { $0.contains("row 30") })
        b.resize(width: 300, height: 100)
        #expect(b.screen.contains { $0.contains("row 30") })
    }

    @Test("wide CJK and emoji titles line up with the accessory column")
    func unicodeTitles() throws {
        let doc: Doc = .object([
            ("Rows", .array([row("東京都", [row("新宿区")]), row("Zürich 🇨🇭", [row("x")]), row("Cafe\u{301}", [row("y")])]))
        ])
        let b = Browser(presenter: try presenter(doc), width: 30, height: 8)
        let lines = b.render().lines
        for y in 2 ... 4 {
            #expect(DisplayWidth.of(lines[y]) == 30)
            #expect(lines[y].hasSuffix("› "))
        }
    }
}
