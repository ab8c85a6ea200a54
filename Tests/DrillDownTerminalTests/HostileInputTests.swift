import DrillDownCore
import Foundation
import Testing
@testable import DrillDownTerminal

/// Issue 9, item 17: pasted text, a screen too small to see, and a file half written elsewhere.
@Suite("Terminal editor against hostile input")
struct HostileInputTests {
    @Test("a bracketed paste is one key holding the text, however the reads split it")
    func bracketedPaste() {
        var d = KeyDecoder()
        #expect(d.feed(Array("j\u{1B}[20".utf8)) == [.character("j")])
        #expect(d.feed(Array("0~dydy\u{1B}[A\u{1B}[2".utf8)) == [])
        #expect(!d.hasPending, "a paste in progress is not flushed by the escape timeout")
        #expect(d.flush() == [])
        #expect(d.feed(Array("01~k".utf8)) == [.paste("dydy\u{1B}[A"), .character("k")])
        #expect(!d.hasPending)
        // The end marker on its own outside a paste is an unknown key, not text.
        #expect(d.feed(Array("\u{1B}[201~".utf8)) == [.unknown])
    }

    @Test("a 400 KB paste decodes in linear time, in 4 KB reads")
    func longPasteDecodes() {
        let text = String(repeating: "abcdefgh", count: 50_000)
        let bytes = Array("\u{1B}[200~\(text)\u{1B}[201~".utf8)
        var d = KeyDecoder()
        var keys: [Key] = []
        let start = Date()
        var i = 0
        while i < bytes.count {
            keys += d.feed(bytes[i ..< min(bytes.count, i + 4096)])
            i += 4096
        }
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(keys == [.paste(text)])
    }

    @Test("pasted keys never act: dydydydy pasted deletes nothing; in a prompt it is text")
    func pasteIsText() async throws {
        var b = try editableBrowser()
        let before = b.savedRootTitles
        await b.press(.paste("dydydydy"))
        #expect(b.savedRootTitles == before)
        #expect(b.prompt == nil)
        #expect(b.saves() == 0)
        await b.press(.character(":"), .paste("Item 4/\nScreen G\n"))
        #expect(b.prompt == .goTo(TextField(text: "Item 4/ Screen G")))
        await b.press(.character("r"), .paste("\u{1B}]52;c;eA==\u{07}Re\tnamed"))
        guard case .goTo(let field) = b.prompt else {
            Issue.record("the go-to prompt closed")
            return
        }
        #expect(field.text.hasSuffix("r]52;c;eA==Re named"), "control characters are dropped from pasted text")
    }

    @Test("a 400 KB paste into a prompt takes well under a second, and the screen still renders")
    func longPasteIntoPrompt() async throws {
        var b = try editableBrowser()
        let text = String(repeating: "abcdefgh", count: 50_000)
        await b.press(.character("a"))
        let start = Date()
        await b.press(.paste(text))
        _ = b.render()
        #expect(Date().timeIntervalSince(start) < 1)
        guard case .title(let p) = b.prompt else {
            Issue.record("the title prompt closed")
            return
        }
        #expect(p.field.text.utf8.count == 400_000)
    }

    @Test("behind the Too small screen only quit, suspend and redraw act")
    func tooSmall() async throws {
        var b = try editableBrowser(width: 10, height: 3)
        let before = b.savedRootTitles
        await b.press(.character("d"), .character("y"), .character("a"), .paste("x"), .enter, .character(":"), .down)
        #expect(b.savedRootTitles == before)
        #expect(b.prompt == nil)
        #expect(b.saves() == 0)
        #expect(b.screen[0].hasPrefix("Too small"))
        b.resize(width: 80, height: 16)
        #expect(b.selectedIndex == 0)
        b.resize(width: 5, height: 2)
        await b.press(.character("q"))
        #expect(b.isFinished)
    }

    @Test("while the file on disk cannot be read, edits are refused in words; a good reload turns them back on")
    func unreadableFileBlocksEdits() async throws {
        var b = try editableBrowser()
        let before = b.savedRootTitles
        b.reloadFailed("data.json: line 3, column 1: expected a value, found end of input")
        #expect(b.status.contains("cannot be read"))
        await b.press(.character("d"), .character("y"))
        #expect(b.savedRootTitles == before)
        #expect(b.saves() == 0)
        #expect(b.status.contains("Not changed"))
        await b.press(.character("u"))
        #expect(b.saves() == 0)
        b.reload(try presenter(seed000))
        #expect(b.unreadableFile == nil)
        await b.press(.character("d"), .character("y"))
        #expect(b.savedRootTitles.count == before.count - 1)
        #expect(b.saves() == 1)
    }

    @Test("the go-to prompt refuses a title path naming two siblings and lists their TreePaths")
    func ambiguousGoTo() throws {
        var b = try browser(.object([("Title", .string("Root")), ("Rows", .array([row("Dup"), row("Other"), row("Dup")]))]), width: 100)
        b.press(.character(":"))
        b.type("Dup")
        b.press(.enter)
        #expect(b.status.contains("2 children titled 'Dup'"))
        #expect(b.status.contains("0, 2"))
        #expect(b.selectedIndex == 0)
    }

    @Test("pasted text becomes one line: breaks and tabs are spaces, controls are dropped")
    func textFieldPaste() {
        var f = TextField(text: "a")
        let changed = f.edit(.paste("b\r\nc\td\u{1B}[2J\u{9B}e\n"))
        #expect(changed)
        #expect(f.text == "ab c d[2Je")
        let unchanged = f.edit(.paste("\n\u{07}"))
        #expect(!unchanged)
    }
}
