import Foundation
import Testing
@testable import DrillDownCore

@Suite("Editing: schema actions, code actions and row controls (the Sounds example)")
struct EditingActionTests {
    func sounds() -> DocumentSource { DocumentSource(tree: soundsDoc.tree) }

    func control(_ schema: Schema, _ kind: String) -> Control { schema.template(named: kind)!.controls[0] }

    @Test("play increments plays on the Sounds example, from 0 and again")
    func play() throws {
        let actions = try ActionSet(schema: try soundsSchema())
        var doc = EditableDocument(source: sounds())
        let ringtone: TreePath = [0, 3]
        #expect(doc.source.title(of: doc.source.node(at: ringtone)!) == "Ringtone")
        for expected in ["1", "2"] {
            try doc.apply(try actions.changes(for: "play", at: ringtone, in: doc.source))
            #expect(doc.source.attribute("plays", of: doc.source.node(at: ringtone)!) == Scalar(.integer, expected))
        }
    }

    @Test("ping records the time as an ISO 8601 UTC date in lastPinged")
    func ping() throws {
        let actions = try ActionSet(schema: try soundsSchema())
        var doc = EditableDocument(source: sounds())
        let at = Date(timeIntervalSince1970: 1_764_000_000)
        try doc.apply(try actions.changes(for: "ping", at: [0, 4], in: doc.source, now: at))
        #expect(doc.source.attribute("lastPinged", of: doc.source.node(at: [0, 4])!) == Scalar(.date, "2025-11-24T16:00:00Z"))
        #expect(ActionSet.iso8601(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(ActionSet.iso8601(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
    }

    @Test("set, toggle and increment by are declarative too; unknown recipes are refused")
    func declarative() throws {
        var schema = Schema()
        schema.actions = [
            "archive": ["set": "state=archived"], "like": ["toggle": "favorite"], "skip": ["increment": "plays", "by": "2.5"],
        ]
        // Ringtone's kind offers the three actions (a row runs only what its kind offers).
        var sound = Template(kind: "sound")
        sound.controls = ["archive", "like", "skip"].map { Control(kind: .button, target: $0, label: $0) }
        schema.kinds = [sound]
        let actions = try ActionSet(schema: schema)
        var doc = EditableDocument(source: sounds())
        for name in ["archive", "like", "skip", "like"] {
            try doc.apply(try actions.changes(for: name, at: [0, 3], in: doc.source))
        }
        let id = doc.source.node(at: [0, 3])!
        #expect(doc.source.attribute("state", of: id) == Scalar(.string, "archived"))
        #expect(doc.source.attribute("favorite", of: id) == Scalar(.bool, "false"))
        #expect(doc.source.attribute("plays", of: id) == Scalar(.real, "2.5"))
        #expect(throws: EditError.self) { try actions.changes(for: "skip", at: [0, 0, 9], in: doc.source) }
        #expect(throws: EditError.self) { try actions.changes(for: "nope", at: [0, 3], in: doc.source) }
        var bad = Schema()
        bad.actions = ["x": ["explode": "now"]]
        #expect(throws: EditError.self) { try ActionSet(schema: bad) }
        bad.actions = ["x": ["increment": "plays", "by": "lots"]]
        #expect(throws: EditError.self) { try ActionSet(schema: bad) }
    }

    @Test("incrementing something that is not a number is an error")
    func incrementText() throws {
        let actions = try ActionSet(schema: try soundsSchema())
        var doc = EditableDocument(source: sounds())
        try doc.apply(.setAttribute([0, 3], key: "plays", value: Scalar(.string, "many")))
        #expect(throws: EditError.self) { try actions.changes(for: "play", at: [0, 3], in: doc.source) }
    }

    @Test("actions registered in code win over the schema and may throw")
    func registered() throws {
        struct Refused: Error {}
        var actions = try ActionSet(schema: try soundsSchema())
        actions.register("play") { path, _ in [.setAttribute(path, key: "plays", value: Scalar(.integer, "100"))] }
        actions.register("fail") { _, _ in throw Refused() }
        var doc = EditableDocument(source: sounds())
        try doc.apply(try actions.changes(for: "play", at: [0, 3], in: doc.source))
        #expect(doc.source.attribute("plays", of: doc.source.node(at: [0, 3])!) == Scalar(.integer, "100"))
        #expect(throws: EditError.self) { try actions.changes(for: "fail", at: [0, 3], in: doc.source) }
        #expect(actions.names == ["fail", "ping", "play"])
    }

    @Test("a switch toggles its bool attribute, or sets it from a form value")
    func switches() throws {
        let schema = try soundsSchema()
        let actions = try ActionSet(schema: schema)
        var doc = EditableDocument(source: sounds())
        let toggle = control(schema, "toggle")
        try doc.apply(try actions.changes(operating: toggle, with: .toggle, at: [0, 0], in: doc.source))
        #expect(doc.source.attribute("enabled", of: doc.source.node(at: [0, 0])!) == Scalar(.bool, "false"))
        try doc.apply(try actions.changes(operating: toggle, with: .set("on"), at: [0, 1], in: doc.source))
        #expect(doc.source.attribute("enabled", of: doc.source.node(at: [0, 1])!) == Scalar(.bool, "true"))
        #expect(throws: EditError.self) { try actions.changes(operating: toggle, with: .set("loud"), at: [0, 1], in: doc.source) }
        #expect(throws: EditError.self) { try actions.changes(operating: toggle, with: .press, at: [0, 1], in: doc.source) }
    }

    @Test("a slider clamps to min…max and rounds to its step; a stepper steps", arguments: [
        ("73", "75"), ("123", "100"), ("-4", "0"), ("62.4", "60"), ("100", "100"),
    ])
    func slider(input: String, expected: String) throws {
        let schema = try soundsSchema()
        let actions = try ActionSet(schema: schema)
        var doc = EditableDocument(source: sounds())
        let volume = control(schema, "volume")
        try doc.apply(try actions.changes(operating: volume, with: .set(input), at: [0, 2], in: doc.source))
        #expect(doc.source.attribute("volume", of: doc.source.node(at: [0, 2])!) == Scalar(.integer, expected))
    }

    @Test("steppers move by whole steps and stop at the bounds; fractional steps stay exact")
    func stepper() throws {
        let actions = ActionSet()
        var doc = EditableDocument(source: sounds())
        let stepper = Control(kind: .stepper, target: "volume", label: "volume", min: 0, max: 70, step: 5)
        try doc.apply(try actions.changes(operating: stepper, with: .step(1), at: [0, 2], in: doc.source))
        #expect(doc.source.attribute("volume", of: doc.source.node(at: [0, 2])!) == Scalar(.integer, "65"))
        try doc.apply(try actions.changes(operating: stepper, with: .step(3), at: [0, 2], in: doc.source))
        #expect(doc.source.attribute("volume", of: doc.source.node(at: [0, 2])!) == Scalar(.integer, "70"))
        let fine = Control(kind: .slider, target: "gain", label: "gain", min: 0, max: 1, step: 0.1)
        #expect(fine.fitted(0.33) == 0.3)
        try doc.apply(try actions.changes(operating: fine, with: .set("0.33"), at: [0, 2], in: doc.source))
        #expect(doc.source.attribute("gain", of: doc.source.node(at: [0, 2])!) == Scalar(.real, "0.3"))
        #expect(throws: EditError.self) { try actions.changes(operating: fine, with: .set("loud"), at: [0, 2], in: doc.source) }
    }

    @Test("a button runs its action")
    func button() throws {
        let schema = try soundsSchema()
        let actions = try ActionSet(schema: schema)
        var doc = EditableDocument(source: sounds())
        let play = schema.template(named: "sound")!.controls[0]
        #expect(play.kind == .button && play.target == "play")
        try doc.apply(try actions.changes(operating: play, with: .press, at: [0, 4], in: doc.source))
        #expect(doc.source.attribute("plays", of: doc.source.node(at: [0, 4])!) == Scalar(.integer, "1"))
    }

    @Test("the schema's controls constrain attribute types: switches take booleans, sliders numbers in range")
    func schemaTypes() throws {
        var doc = EditableDocument(source: sounds(), schema: try soundsSchema())
        #expect(throws: EditError.self) { try doc.apply(.setAttribute([0, 0], key: "enabled", value: Scalar(.string, "maybe"))) }
        #expect(throws: EditError.self) { try doc.apply(.setAttribute([0, 2], key: "volume", value: Scalar(.integer, "150"))) }
        #expect(throws: EditError.self) { try doc.apply(.setAttribute([0, 2], key: "Volume", value: Scalar(.string, "loud"))) }
        try doc.apply(.setAttribute([0, 0], key: "enabled", value: Scalar(.bool, "false")))
        try doc.apply(.setAttribute([0, 2], key: "volume", value: Scalar(.real, "42.5")))
        try doc.apply(.setAttribute([0, 3], key: "enabled", value: Scalar(.string, "n/a")))  // a sound has no switch
        #expect(doc.source.attribute("volume", of: doc.source.node(at: [0, 2])!) == Scalar(.real, "42.5"))
    }
}
