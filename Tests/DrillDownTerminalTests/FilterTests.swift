import DrillDownCore
import Testing

@testable import DrillDownTerminal

/// `f` narrows the level shown with a filter expression (issue 33 item 1 in the terminal UI).
@Suite struct FilterTests {
    /// An album of five songs with lengths in seconds.
    let album: Doc = .object([
        (
            "Rows",
            .array([
                row("Kind of Blue", [
                    row("So What", [], [("length", .int(562))]),
                    row("Freddie Freeloader", [], [("length", .int(586))]),
                    row("Blue in Green", [], [("length", .int(337))]),
                    row("All Blues", [], [("length", .int(693))]),
                    row("Flamenco Sketches", [], [("length", .int(566))]),
                ])
            ])
        )
    ])

    func songs() throws -> Browser {
        var b = try browser(album, width: 80, height: 16)
        b.press(.enter)
        return b
    }

    func titles(_ b: Browser) -> [String] {
        guard case .level(let n) = b.navigator.top else { return [] }
        return b.presenter.rows(of: n).map(\.title)
    }

    @Test func aFilterNarrowsTheLevelAndSaysSo() throws {
        var b = try songs()
        b.press(.character("f"))
        b.type("length>570")
        #expect(b.render().lines[15].contains("Filter"))
        b.press(.enter)
        #expect(b.prompt == nil)
        #expect(titles(b) == ["Freddie Freeloader", "All Blues"])
        #expect(b.message?.text.hasPrefix("2 of 5 rows where length>570") == true)
        b.press(.character("j"))
        // The status line counts the rows shown, names the filter, and the TreePath names the
        // row's place among all its siblings.
        let status = b.render().lines[15]
        #expect(status.contains("2/2 where length>570"))
        #expect(status.contains("0.3"))
    }

    @Test func aBadExpressionKeepsThePromptOpenAndNamesTheColumn() throws {
        var b = try songs()
        b.press(.character("f"))
        b.type("lenght>5")
        b.press(.enter)
        guard case .filter(let p) = b.prompt else {
            Issue.record("the prompt closed")
            return
        }
        #expect(p.error?.contains("column 1") == true)
        #expect(b.render().lines[14].contains("lenght"))
        #expect(titles(b).count == 5)
        // Fixing the text clears the error; Esc cancels and changes nothing.
        b.press(.backspace)
        guard case .filter(let q) = b.prompt else { return }
        #expect(q.error == nil)
        b.press(.escape)
        #expect(b.prompt == nil && titles(b).count == 5)
    }

    @Test func theFilterStaysOnItsLevelWhileBrowsingAndFClearsIt() throws {
        var b = try songs()
        b.press(.character("f"))
        b.type("title~blue")
        b.press(.enter)
        #expect(titles(b) == ["Blue in Green", "All Blues"])
        b.press(.backspace)
        #expect(titles(b) == ["Kind of Blue"])
        b.press(.enter)
        #expect(titles(b) == ["Blue in Green", "All Blues"])
        // `f` again shows the level's filter for changing it.
        b.press(.character("f"))
        guard case .filter(let p) = b.prompt else {
            Issue.record("no prompt")
            return
        }
        #expect(p.field.text == "title~blue")
        b.press(.escape, .character("F"))
        #expect(titles(b).count == 5)
        #expect(b.message?.text == "Every row shown")
    }

    @Test func theFilterIsAppliedAgainToANewVersionOfTheData() throws {
        var b = try songs()
        b.press(.character("f"))
        b.type("length<400")
        b.press(.enter)
        #expect(titles(b) == ["Blue in Green"])
        // A reload (the file changed on disk): the filter still narrows the level.
        let changed: Doc = .object([
            ("Rows", .array([row("Kind of Blue", [row("So What", [], [("length", .int(300))]), row("Blue in Green", [], [("length", .int(337))])])]))
        ])
        b.reload(try presenter(changed))
        #expect(titles(b) == ["So What", "Blue in Green"])
        #expect(b.render().lines[15].contains("where length<400"))
        // A filter nothing matches says so.
        b.press(.character("f"), .control("u"))
        b.type("length>2000")
        b.press(.enter)
        #expect(b.render().lines[2].contains("No row matches length>2000"))
    }

    @Test func theOutlineSaysWhatFFilters() throws {
        var b = try browser(album, width: 80, height: 16)
        b.press(.character("o"), .character("f"))
        #expect(b.prompt == nil)
        #expect(b.message?.isError == true)
    }
}
