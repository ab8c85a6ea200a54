import Testing

@testable import DrillDownTerminal

@Suite("Display width of Unicode text")
struct DisplayWidthTests {
    @Test("ASCII is one cell per character; control characters take none")
    func ascii() {
        #expect(DisplayWidth.of("Screen G") == 8)
        #expect(DisplayWidth.of("") == 0)
        #expect(DisplayWidth.of(Character("\u{7}")) == 0)
    }

    @Test("CJK ideographs, kana, Hangul and fullwidth forms take two cells")
    func wide() {
        #expect(DisplayWidth.of("東京") == 4)
        #expect(DisplayWidth.of("カタカナ") == 8)
        #expect(DisplayWidth.of("한국") == 4)
        #expect(DisplayWidth.of("ＡＢ") == 4)
        #expect(DisplayWidth.of("中国 China") == 10)
    }

    @Test("combining marks take no cell of their own")
    func combining() {
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("Cafe\u{301}") == 4)
        #expect(DisplayWidth.of("a\u{20DD}") == 1)
        #expect(DisplayWidth.of("\u{200B}") == 0)
    }

    @Test("emoji take two cells, with modifiers, ZWJ sequences, flags and presentation selectors")
    func emoji() {
        #expect(DisplayWidth.of("🎵") == 2)
        #expect(DisplayWidth.of("👍🏽") == 2)
        #expect(DisplayWidth.of("👩‍👩‍👧") == 2)
        #expect(DisplayWidth.of("🇯🇵") == 2)
        #expect(DisplayWidth.of("❤️") == 2)
        #expect(DisplayWidth.of("❤") == 1)
    }

    @Test("truncation ends in … and never splits a grapheme or exceeds the width")
    func truncation() {
        #expect(TextFitting.truncate("Screen G", to: 20) == "Screen G")
        #expect(TextFitting.truncate("Screen Guide", to: 8) == "Screen …")
        #expect(TextFitting.truncate("東京都庁", to: 5) == "東京…")
        #expect(TextFitting.truncate("東京都庁", to: 6) == "東京…")
        #expect(TextFitting.truncate("Cafe\u{301} au lait", to: 5) == "Cafe\u{301}…")
        #expect(TextFitting.truncate("👩‍👩‍👧👩‍👩‍👧", to: 3) == "👩‍👩‍👧…")
        #expect(TextFitting.truncate("abc", to: 0) == "")
        for text in ["東京 Tokyo 🎵 e\u{301}x", "ＡＢＣＤＥＦ", "a👍🏽b🇯🇵c"] {
            for w in 1 ... 16 {
                let cut = TextFitting.truncate(text, to: w)
                #expect(DisplayWidth.of(cut) <= w, "\(text) at \(w): \(cut)")
                #expect(cut == text || cut.hasSuffix("…"))
                #expect(text.hasPrefix(String(cut.dropLast())) || cut == text)
            }
        }
    }

    @Test("truncating the head keeps the end, for breadcrumbs")
    func head() {
        #expect(TextFitting.truncateHead("Root › Item 4 › Screen G", to: 12) == "… › Screen G")
        #expect(TextFitting.truncateHead("Root", to: 12) == "Root")
    }

    @Test("wrapping breaks at spaces, splits only words longer than a line, and keeps widths")
    func wrapping() {
        #expect(TextFitting.wrap("a long value here", to: 6) == ["a long", "value", "here"])
        #expect(TextFitting.wrap("abcdefghij", to: 4) == ["abcd", "efgh", "ij"])
        #expect(TextFitting.wrap("東京都庁舎", to: 4) == ["東京", "都庁", "舎"])
        #expect(TextFitting.wrap("one\ntwo", to: 10) == ["one", "two"])
        for line in TextFitting.wrap("The quick 東京 brown fox 👍🏽 jumps over e\u{301}e\u{301} the lazy dog", to: 7) {
            #expect(DisplayWidth.of(line) <= 7)
        }
    }
}
