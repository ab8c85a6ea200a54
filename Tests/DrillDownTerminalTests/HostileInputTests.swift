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
    func pasteIsText() throws {
        var b = try editableBrowser()
        let before = b.savedRootTitles
        b.press(.paste("dydydydy"))
        #expect(b.savedRootTitles == before)
        #expect(b.prompt == nil)
        #expect(b.saves() == 0)
        b.press(.character(":"), .paste("Item 4/\nScreen G\n"))
        #expect(b.prompt == .goTo(TextField(text: "Item 4/ Screen G")))
        b.press(.character("r"), .paste("\u{1B}]52;c;eA==\u{07}Re\tnamed"))
        guard case .goTo(let field) = b.prompt else {
            Issue.record("the go-to prompt closed")
            return
        }
        #expect(field.text.hasSuffix("r]52;c;eA==Re named"), "control characters are dropped from pasted text")
    }

    @Test("a 400 KB paste into a prompt takes well under a second, and the screen still renders")
    func longPasteIntoPrompt() throws {
        var b = try editableBrowser()
        let text = String(repeating: "abcdefgh", count: 50_000)
        b.press(.character("a"))
        let start = Date()
        b.press(.paste(text))
        _ = b.render()
        #expect(Date().timeIntervalSince(start) < 1)
        guard case .title(let p) = b.prompt else {
            Issue.record("the title prompt closed")
            return
        }
        #expect(p.field.text.utf8.count == 400_000)
    }

    @Test("behind the Too small screen only quit, suspend and redraw act")
    func tooSmall() throws {
        var b = try editableBrowser(width: 10, height: 3)
        let before = b.savedRootTitles
        b.press(.character("d"), .character("y"), .character("a"), .paste("x"), .enter, .character(":"), .down)
        #expect(b.savedRootTitles == before)
        #expect(b.prompt == nil)
        #expect(b.saves() == 0)
        #expect(b.screen[0].hasPrefix("Too small"))
        b.resize(width: 80, height: 16)
        #expect(b.selectedIndex == 0)
        b.resize(width: 5, height: 2)
        b.press(.character("q"))
        #expect(b.isFinished)
    }

    @Test("while the file on disk cannot be read, edits are refused in words; a good reload turns them back on")
    func unreadableFileBlocksEdits() throws {
        var b = try editableBrowser()
        let before = b.savedRootTitles
        b.reloadFailed("data.json: line 3, column 1: expected a value, found end of input")
        #expect(b.status.contains("cannot be read"))
        b.press(.character("d"), .character("y"))
        #expect(b.savedRootTitles == before)
        #expect(b.saves() == 0)
        #expect(b.status.contains("Not changed"))
        b.press(.character("u"))
        #expect(b.saves() == 0)
        b.reload(try presenter(seed000))
        #expect(b.unreadableFile == nil)
        b.press(.character("d"), .character("y"))
        #expect(b.savedRootTitles.count == before.count - 1)
        #expect(b.saves() == 1)
    }

    @Test("a save is refused when the file changed elsewhere since it was read; the change is then read")
    func saveRefusedAfterOutsideChange() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dd-conflict-\(UUID().uuidString).txt").path
        try "one".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let watcher = FileWatcher(WatchedFile(paths: [path]) { try presenter(seed000) }, notify: {})
        let saver = FileSaver(save: { _ in try "mine".write(toFile: path, atomically: true, encoding: .utf8) }, watcher: watcher, notify: {})
        try "theirs, written elsewhere".write(toFile: path, atomically: true, encoding: .utf8)
        saver.submit(seed000.tree, serial: 1)
        saver.finish()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "theirs, written elsewhere")
        #expect(saver.takeRefusal(), "refused as older than the file, not failed")
        #expect(saver.takeFailures().isEmpty)
        #expect(saver.savedSerial == 0, "the step is not on disk")
        // Polled until the reload is read (check() starts it once its interval has passed); the
        // 30 s deadline only bounds a failure.
        let deadline = Date().addingTimeInterval(30)
        var reloaded = false
        while !reloaded, Date() < deadline {
            watcher.check()
            reloaded = watcher.take() != nil
            if !reloaded { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(reloaded, "the change made elsewhere is still read after the refused save")
    }

    @Test("a save that throws SaveConflict is refused, not failed; a later write records its serial")
    func saveConflictFromTheWriter() throws {
        let refuse = LockedFlag(true)
        let saver = FileSaver(save: { _ in if refuse.value { throw SaveConflict() } }, watcher: nil, notify: {})
        saver.submit(seed000.tree, serial: 1)
        saver.finish()
        #expect(saver.takeRefusal())
        #expect(saver.takeFailures().isEmpty)
        #expect(saver.savedSerial == 0)
        refuse.value = false
        saver.submit(seed000.tree, serial: 2)
        saver.finish()
        #expect(!saver.takeRefusal())
        #expect(saver.savedSerial == 2)
    }

    @Test("after a refused save the reload applies the unsaved steps to the newer version and saves them")
    func reloadReappliesUnsavedSteps() throws {
        var b = try editableBrowser()
        b.press(.character("a"))
        b.type("Mine")
        b.press(.enter)
        #expect(b.saves() == 1)
        let serial = b.stepSerial
        // Someone else renamed the first row and added one at the top; this browser's add was refused.
        var theirs = EditableDocument(tree: seed000.tree)
        try theirs.apply(.updateTitle([0], title: "Theirs"))
        try theirs.apply(.insert(NewNode(title: "Zero"), parent: .root, index: 0))
        b.reload(Presenter(source: theirs.source), savedThrough: serial - 1)
        #expect(b.savedRootTitles.contains("Mine"), "the add is applied again")
        #expect(b.savedRootTitles.contains("Theirs") && b.savedRootTitles.contains("Zero"), "over the other writer's changes")
        #expect(b.saves() == 1, "and saved again")
        #expect(b.message?.text.contains("applied again to the new version") == true, "\(b.message?.text ?? "")")
        #expect(b.message?.isError == false)
        // Saved: a later reload does not apply it twice.
        b.saved(through: b.stepSerial)
        var later = EditableDocument(tree: seed000.tree)
        try later.apply(.insert(NewNode(title: "Mine"), parent: .root, index: 1))
        b.reload(Presenter(source: later.source), savedThrough: b.stepSerial)
        #expect(b.savedRootTitles.filter { $0 == "Mine" }.count == 1)
        #expect(b.saves() == 0)
    }

    @Test("a step that no longer applies after the file changed elsewhere is reported, not lost in silence")
    func reloadReportsAStepThatNoLongerApplies() throws {
        var b = try editableBrowser()
        b.press(.end, .character("r"))
        b.type(" renamed")
        b.press(.enter)
        _ = b.saves()
        var theirs = EditableDocument(tree: seed000.tree)
        try theirs.apply(.delete([3]))
        b.reload(Presenter(source: theirs.source), savedThrough: 0)
        #expect(b.message?.isError == true)
        #expect(b.message?.text.contains("no longer applies") == true, "\(b.message?.text ?? "")")
        #expect(b.saves() == 0)
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

/// A flag shared with a background thread.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag: Bool
    init(_ value: Bool) { flag = value }
    var value: Bool {
        get { lock.withLock { flag } }
        set { lock.withLock { flag = newValue } }
    }
}
