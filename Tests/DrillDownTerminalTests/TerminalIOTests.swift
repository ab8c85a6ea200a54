import Testing

@testable import DrillDownTerminal

@Suite("Key decoding")
struct KeyDecoderTests {
    @Test("arrows, Home/End and paging keys in their CSI and SS3 forms")
    func sequences() {
        var d = KeyDecoder()
        #expect(d.feed(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D".utf8)) == [.up, .down, .right, .left])
        #expect(d.feed(Array("\u{1B}OA\u{1B}OH\u{1B}OF".utf8)) == [.up, .home, .end])
        #expect(d.feed(Array("\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~".utf8)) == [.home, .end, .home, .end, .home, .end])
        #expect(d.feed(Array("\u{1B}[5~\u{1B}[6~\u{1B}[3~".utf8)) == [.pageUp, .pageDown, .delete])
        #expect(d.feed(Array("\u{1B}[1;5A".utf8)) == [.up])
    }

    @Test("both Backspace bytes, Enter, Tab and control keys")
    func singleBytes() {
        var d = KeyDecoder()
        #expect(d.feed([0x7F, 0x08, 0x0D, 0x09, 0x03]) == [.backspace, .backspace, .enter, .tab, .control("c")])
    }

    @Test("a lone Esc waits for a timeout; a split sequence completes with the next bytes")
    func escape() {
        var d = KeyDecoder()
        #expect(d.feed([0x1B]) == [])
        #expect(d.hasPending)
        #expect(d.flush() == [.escape])
        #expect(!d.hasPending)
        #expect(d.feed([0x1B, UInt8(ascii: "[")]) == [])
        #expect(d.feed([UInt8(ascii: "B")]) == [.down])
        #expect(d.feed([0x1B, 0x1B, UInt8(ascii: "[") , UInt8(ascii: "A")]) == [.escape, .up])
        #expect(d.feed([0x1B, UInt8(ascii: "q")]) == [.escape, .character("q")])
    }

    @Test("UTF-8 text, also when a character arrives in two reads")
    func text() {
        var d = KeyDecoder()
        let bytes = Array("東".utf8)
        #expect(d.feed(bytes.prefix(2)) == [])
        #expect(d.feed(bytes.suffix(1)) == [.character("東")])
        #expect(d.feed(Array("jé".utf8)) == [.character("j"), .character("é")])
    }
}

@Suite("Frames and the diff renderer")
struct RendererTests {
    @Test("text is clipped by display width and wide characters take two cells")
    func put() {
        var f = Frame(width: 10, height: 2)
        let end = f.put("東京 Tokyo", row: 0, column: 0)
        #expect(end == 10)
        #expect(f.lines[0] == "東京 Tokyo")
        f.put("東京東京東京", row: 1, column: 0, width: 5)
        #expect(f.lines[1] == "東京…     ")
        #expect(f[0, 1].isContinuation)
    }

    @Test("control characters in data never reach the terminal")
    func sanitizes() {
        var f = Frame(width: 20, height: 1)
        f.put("a\u{1B}[2Jb\tc\u{9B}2J", row: 0, column: 0)
        #expect(f.lines[0].hasPrefix("a␛[2Jb␉c\\u009b2J"))
        var r = Renderer(noColor: false)
        #expect(!r.render(f).dropFirst(12).contains("\u{1B}[2J"))
    }

    @Test("overwriting half of a wide character blanks the other half")
    func halfOverwrite() {
        var f = Frame(width: 6, height: 1)
        f.put("東京", row: 0, column: 0)
        f.put("x", row: 0, column: 1)
        #expect(f.lines[0] == " x京  ")
    }

    @Test("the second frame writes only the cells that changed")
    func diff() {
        var r = Renderer(noColor: false)
        var a = Frame(width: 20, height: 5)
        a.put("Root", row: 0, column: 0)
        a.put("Item 1", row: 2, column: 1)
        let first = r.render(a)
        #expect(first.contains("\u{1B}[2J"))
        var b = a
        b.put("Item 9", row: 2, column: 1)
        let second = r.render(b)
        #expect(!second.contains("\u{1B}[2J"))
        #expect(second.contains("\u{1B}[3;7H"))
        #expect(second.contains("9"))
        #expect(!second.contains("Item"))
        #expect(r.render(b).isEmpty)
    }

    @Test("a size change redraws everything")
    func resize() {
        var r = Renderer(noColor: false)
        _ = r.render(Frame(width: 10, height: 3))
        #expect(r.render(Frame(width: 12, height: 3)).contains("\u{1B}[2J"))
    }

    @Test("NO_COLOR drops colours but keeps attributes such as reverse video")
    func noColor() {
        var f = Frame(width: 10, height: 1)
        f.put("error", row: 0, column: 0, style: Style.bold.colored(1))
        f.paint(row: 0, column: 0, count: 2, style: .reverse)
        var plain = Renderer(noColor: true)
        let out = plain.render(f)
        #expect(!out.contains("31"))
        #expect(out.contains("\u{1B}[0;1;7m"))
        var colored = Renderer(noColor: false)
        #expect(colored.render(f).contains(";31m"))
    }
}
