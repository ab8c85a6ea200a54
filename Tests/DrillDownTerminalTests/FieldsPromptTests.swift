import DrillDownCore
import Testing
@testable import DrillDownTerminal

/// A generic JSON config: `server` with a host and a port.
let config: Doc = .object([("server", .object([("host", .string("localhost")), ("port", .int(8080))])), ("debug", .bool(false))])

@Suite("Browser: e edits values and fields")
struct FieldsPromptTests {
    @Test("e on a leaf edits its value: 9090 stays an integer")
    func leafValue() async throws {
        var b = try editableBrowser(config)
        await b.press(.enter, .down)
        #expect(b.status.contains("2/2"))
        await b.press(.character("e"))
        guard case .fields(let p) = b.prompt else { Issue.record("no form"); return }
        #expect(p.form.isValue)
        #expect(p.inputs.map(\.text) == ["8080"])
        #expect(b.render().text.contains("Edit the value of “port”"))
        await b.press(.control("u"))
        await b.type("9090")
        await b.press(.enter)
        #expect(b.prompt == nil)
        let s = b.model.versionedSource.source
        #expect(s.node(at: [0, 1]).flatMap { s.value(of: $0) } == Scalar(.integer, "9090"))
        #expect(b.status.contains("port = 9090"))
        #expect(b.selectedIndex == 1, "the edited leaf stays selected")
    }

    @Test("an invalid integer is refused naming the field; the form stays open and nothing is asked of the model")
    func invalidInteger() async throws {
        var b = try editableBrowser(config)
        await b.press(.enter, .down, .character("e"), .control("u"))
        await b.type("90x")
        await b.press(.enter)
        guard case .fields(let p) = b.prompt else { Issue.record("the form closed"); return }
        #expect(p.inputs[0].text == "90x")
        #expect(b.message?.isError == true)
        #expect(b.message?.text.contains("port") == true, "\(b.message?.text ?? "")")
        #expect(b.render().text.contains("integer"))
        #expect(b.saves() == 0)
        await b.press(.escape)
        #expect(b.prompt == nil)
        #expect(b.status.contains("Not changed"))
        let s = b.model.versionedSource.source
        #expect(s.node(at: [0, 1]).flatMap { s.value(of: $0) } == Scalar(.integer, "8080"))
    }

    @Test("e on a row opens its fields: Tab moves, Enter saves every changed field as one step, typed by the field")
    func rowFields() async throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        await b.press(.enter, .down, .down, .character("e"))
        guard case .fields(let p) = b.prompt else { Issue.record("no form"); return }
        #expect(p.form.fields.first?.isTitle == true)
        let keys = p.form.fields.map(\.key)
        let plays = try #require(keys.firstIndex(of: "plays"))
        let file = try #require(keys.firstIndex(of: "file"))
        #expect(b.render().text.contains("Edit “Ringtone”"))
        for _ in 0 ..< file { await b.press(.tab) }
        await b.press(.control("u"))
        await b.type("Chimes.m4r")
        for _ in 0 ..< (plays - file + p.inputs.count) % p.inputs.count { await b.press(.tab) }
        await b.press(.control("u"))
        await b.type("7")
        await b.press(.enter)
        #expect(b.saves() == 1, "one step")
        #expect(b.attribute("plays", at: [0, 2]) == "7")
        #expect(b.attribute("file", at: [0, 2]) == "Chimes.m4r")
        let s = b.model.versionedSource.source
        #expect(s.node(at: [0, 2]).flatMap { s.attribute("plays", of: $0)?.kind } == .integer)
        #expect(b.status.contains("Saved “Ringtone”"))
        await b.press(.character("u"))
        #expect(b.attribute("plays", at: [0, 2]) == "0", "undone as one step")
        #expect(b.attribute("file", at: [0, 2]) == "Opening.m4r")
    }

    @Test("Shift-Tab and ↑ go back; Enter with nothing changed changes nothing; read-only says so")
    func navigationAndNoChange() async throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        await b.press(.enter, .down, .down, .character("e"), .backTab)
        guard case .fields(let p) = b.prompt else { Issue.record("no form"); return }
        #expect(p.active == p.inputs.count - 1)
        await b.press(.up, .enter)
        #expect(b.prompt == nil)
        #expect(b.status.contains("Nothing changed"))
        #expect(b.saves() == 0)
        var r = try browser(config)
        r.press(.enter, .character("e"))
        #expect(r.status.contains(Browser.readOnlyMessage))
    }

    @Test("when the model refuses the form's step, the form opens again as typed, on the field the refusal names")
    func storeRefusalReopensTheForm() async throws {
        var b = try editableBrowser(sounds, schema: soundsSchema)
        await b.press(.enter, .down, .down, .character("e"))
        guard case .fields(let opened) = b.prompt else { Issue.record("no form"); return }
        let plays = try #require(opened.form.fields.firstIndex { $0.key == "plays" })
        for _ in 0 ..< plays { b.browser.step(.tab) }
        b.browser.step(.control("u"))
        for c in "7" { b.browser.step(.character(c)) }
        b.browser.step(.enter)
        guard case .edit(let request)? = b.browser.takeEffects().last else { Issue.record("no request"); return }
        #expect(b.prompt == nil)
        b.browser.finish(request, .failed(EditError("column 'plays' is CHECKed", field: "plays")), source: b.source)
        guard case .fields(let again) = b.prompt else { Issue.record("the form did not open again"); return }
        #expect(again.active == plays)
        #expect(again.inputs[plays].text == "7")
        #expect(b.render().text.contains("column 'plays' is CHECKed"))
    }

    @Test("each field shows what it takes: its type, a choice's choices, a number's bounds")
    func hints() {
        #expect(Browser.hint(for: Field(key: "port", type: .integer)) == "integer")
        #expect(Browser.hint(for: Field(key: "genre", choices: ["Rock", "Jazz"])) == "Rock|Jazz")
        #expect(Browser.hint(for: Field(key: "rating", type: .integer, min: 0, max: 5)) == "integer 0…5")
        #expect(Browser.hint(for: Field(key: "id", type: .integer, editable: false)) == "integer, fixed")
    }
}
