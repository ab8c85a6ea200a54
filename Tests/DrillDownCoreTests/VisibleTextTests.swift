import Testing
@testable import DrillDownCore

/// Issue 9, item 16: the one rule that keeps file text from driving a terminal.
@Suite("VisibleText: control characters shown, not run")
struct VisibleTextTests {
    @Test("C0, DEL, C1 (CSI U+009B) and bidi overrides become visible stand-ins")
    func escapes() {
        #expect(VisibleText.escaping("a\u{1B}]52;c;aGk=\u{07}b") == "a␛]52;c;aGk=␇b")
        #expect(VisibleText.escaping("x\u{7F}\u{9B}2J\u{85}") == "x␡\\u009b2J\\u0085")
        #expect(VisibleText.escaping("\u{202E}cod\u{2066}e\u{2069}") == "\\u202ecod\\u2066e\\u2069")
        #expect(VisibleText.escaping("tab\there\nnew") == "tab␉here␊new")
        #expect(VisibleText.escaping("\u{0}") == "␀")
    }

    @Test("ordinary text, including wide and accented letters, is returned as it is")
    func plain() {
        for text in ["", "Item 4", "東京 Tokyo", "Café ‹ › … ⓘ", "emoji 👩‍👩‍👧 ok", "\u{A0}nbsp", "\u{200F}rlm"] {
            #expect(!VisibleText.needsEscaping(text))
            #expect(VisibleText.escaping(text) == text)
        }
        // Bytes that only look like the start of C1 or bidi encodings are not controls.
        #expect(!VisibleText.needsEscaping("\u{A9}\u{2029}\u{2065}\u{206A}\u{202F}"))
    }

    @Test("the byte scan agrees with the scalar rule on every scalar up to U+3000")
    func scanMatchesRule() {
        for v in UInt32(0) ..< 0x3000 {
            guard let scalar = Unicode.Scalar(v) else { continue }
            let text = "a" + String(scalar) + "b"
            #expect(VisibleText.needsEscaping(text) == VisibleText.isControl(scalar), "U+\(String(v, radix: 16))")
        }
    }
}
