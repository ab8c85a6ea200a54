@testable import DrillDownCore
import Testing

@Suite("Fields: typed text in, typed values out, errors that name the field")
struct FieldTests {
    @Test("each type reads what people type", arguments: [
        (FieldType.integer, "42", Scalar(.integer, "42")),
        (.number, "2.5", Scalar(.real, "2.5")),
        (.number, "7", Scalar(.integer, "7")),
        (.boolean, "Yes", Scalar(.bool, "true")),
        (.boolean, "off", Scalar(.bool, "false")),
        (.date, "2024-02-29", Scalar(.date, "2024-02-29")),
        (.date, "2024-05-01 10:30:00Z", Scalar(.date, "2024-05-01T10:30:00Z")),
        (.duration, "3:43", Scalar(.integer, "223")),
        (.duration, "1:02:05", Scalar(.integer, "3725")),
        (.duration, "223", Scalar(.integer, "223")),
        (.url, "https://example.com/a?b=c", Scalar(.string, "https://example.com/a?b=c")),
        (.text, " as typed ", Scalar(.string, " as typed ")),
        (.data, "AAEC", Scalar(.data, "AAEC")),
    ])
    func reads(type: FieldType, text: String, expected: Scalar) throws {
        #expect(try Field(key: "k", type: type).scalar(from: text) == expected)
    }

    @Test("each type refuses what it is not, naming the field's label", arguments: [
        (FieldType.integer, "4.5", "'Count' takes an integer, not '4.5'"),
        (.number, "abc", "'Count' takes a number, not 'abc'"),
        (.boolean, "maybe", "'Count' takes true or false, not 'maybe'"),
        (.date, "2023-02-29", "'Count' takes a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ), not '2023-02-29'"),
        (.duration, "3:75", "'Count' takes a duration (m:ss, h:mm:ss or seconds), not '3:75'"),
        (.url, "not a url", "'Count' takes a URL (https://…), not 'not a url'"),
    ])
    func refuses(type: FieldType, text: String, message: String) {
        let error = #expect(throws: EditError.self) { try Field(key: "count", label: "Count", type: type).scalar(from: text) }
        #expect(error?.message == message && error?.field == "count")
    }

    @Test("bounds, choices and required")
    func rules() throws {
        let rating = Field(key: "rating", type: .integer, min: 0, max: 5)
        #expect(throws: EditError.self) { try rating.scalar(from: "6") }
        #expect(try rating.scalar(from: "5") == Scalar(.integer, "5"))
        let genre = Field(key: "genre", choices: ["Rock", "Jazz"])
        #expect(genre.type == .choice)
        #expect(try genre.scalar(from: "jazz") == Scalar(.string, "Jazz"))
        let error = #expect(throws: EditError.self) { try genre.scalar(from: "Polka") }
        #expect(error?.message == "'genre' takes one of Rock, Jazz, not 'Polka'")
        #expect(try genre.scalar(from: "") == nil)
        let name = Field(key: "name", label: "Name", required: true)
        #expect((#expect(throws: EditError.self) { try name.scalar(from: "  ") })?.message == "'Name' is required")
    }

    @Test("typed values: a text field takes any scalar as text, others their own kinds")
    func typed() throws {
        #expect(try Field(key: "t").accept(Scalar(.integer, "9090")) == Scalar(.string, "9090"))
        #expect(try Field(key: "n", type: .integer).accept(Scalar(.real, "3.0")) == Scalar(.integer, "3"))
        #expect(throws: EditError.self) { try Field(key: "n", type: .integer).accept(Scalar(.bool, "true")) }
        #expect(try Field(key: "d", type: .duration).accept(Scalar(.string, "3:43")) == Scalar(.integer, "223"))
    }

    @Test("a duration shows as m:ss")
    func display() {
        #expect(Field(key: "length", type: .duration).display(Scalar(.integer, "223")) == "3:43")
        #expect(Field(key: "x").display(nil) == "")
    }
}

@Suite("Field forms: a row's fields from the schema or its attributes, and the changes a submission makes")
struct FieldFormTests {
    func music() throws -> (DocumentSource, Schema) {
        let doc: Doc = .object([
            ("Title", .string("Music")),
            ("Rows", .array([
                .object([("name", .string("Miles")), ("albums", .array([
                    .object([("title", .string("Kind of Blue")), ("songs", .array([
                        .object([("name", .string("So What")), ("length", .int(562)), ("composer", .string("Miles Davis"))]),
                    ]))]),
                ]))]),
            ])),
        ])
        let schemaDoc: Doc = .object([
            ("root", .string("artist")),
            ("kinds", .object([
                ("artist", .object([("title", .string("{name}")), ("children", .string("albums")), ("childKind", .string("album"))])),
                ("album", .object([("children", .string("songs")), ("childKind", .string("song"))])),
                ("song", .object([("fields", .array([
                    .object([("key", .string("name")), ("label", .string("Name")), ("required", .bool(true))]),
                    .object([("key", .string("length")), ("type", .string("duration")), ("required", .bool(true))]),
                    .object([("key", .string("composer"))]),
                    .object([("key", .string("genre")), ("choices", .array([.string("Rock"), .string("Jazz")]))]),
                    .object([("key", .string("rating")), ("type", .string("integer")), ("min", .int(0)), ("max", .int(5))]),
                ]))])),
            ])),
        ])
        let schema = try Schema(tree: schemaDoc.tree)
        let keys = OutlineKeys.standard.preferring(title: ["name"], children: ["albums", "songs"])
        return (DocumentSource(tree: doc.tree, keys: keys), schema)
    }

    @Test("a song's form: the declared fields in order, the title first, values shown as typed")
    func edit() throws {
        let (source, schema) = try music()
        let form = FieldForm(source: source, schema: schema, node: source.node(at: [0, 0, 0])!)
        #expect(form.kind == "song")
        #expect(form.fields.map(\.key) == ["name", "length", "composer", "genre", "rating"])
        #expect(form.fields.map(\.label) == ["Name", "length", "composer", "genre", "rating"])
        #expect(form.text(of: form.fields[1]) == "9:22" && form.text(of: form.fields[0]) == "So What")
        let changes = try form.changes(["length": "3:43", "composer": "", "name": "So What", "genre": "jazz"])
        #expect(changes == [
            .setAttribute([0, 0, 0], key: "length", value: Scalar(.integer, "223")),
            .setAttribute([0, 0, 0], key: "composer", value: nil),
            .setAttribute([0, 0, 0], key: "genre", value: Scalar(.string, "Jazz")),
        ])
        var doc = EditableDocument(source: source, schema: schema)
        try doc.apply(changes)
        #expect(doc.source.attribute("length", of: doc.source.node(at: [0, 0, 0])!) == Scalar(.integer, "223"))
    }

    @Test("the store refuses what the schema's fields refuse, whoever sends it")
    func storeChecks() throws {
        let (source, schema) = try music()
        var doc = EditableDocument(source: source, schema: schema)
        let bad = #expect(throws: EditError.self) { try doc.apply([.setAttribute([0, 0, 0], key: "rating", value: Scalar(.integer, "9"))]) }
        #expect(bad?.field == "rating")
        let gone = #expect(throws: EditError.self) { try doc.apply([.setAttribute([0, 0, 0], key: "length", value: nil)]) }
        #expect(gone?.message == "'length' is required and cannot be removed")
    }

    @Test("the Add form asks for the required fields and builds the new row")
    func add() throws {
        let (source, schema) = try music()
        let form = FieldForm(source: source, schema: schema, newChildOf: source.node(at: [0, 0])!)
        #expect(form.kind == "song" && form.fields.filter(\.required).map(\.key) == ["name", "length"])
        let missing = #expect(throws: EditError.self) { try form.newNode(["name": "Blue in Green"]) }
        #expect(missing?.message == "'length' is required" && missing?.field == "length")
        let node = try form.newNode(["name": "Blue in Green", "length": "5:37", "genre": "Jazz"])
        #expect(node.title == "Blue in Green")
        #expect(node.attributes == [Attribute(key: "length", value: Scalar(.integer, "337")), Attribute(key: "genre", value: Scalar(.string, "Jazz"))])
    }

    @Test("without a schema a row's fields are its attributes, typed by their values")
    func inferred() throws {
        let (source, _) = try music()
        let form = FieldForm(source: source, schema: Schema(), node: source.node(at: [0, 0, 0])!)
        #expect(form.fields.map(\.key) == ["title", "length", "composer"])
        #expect(form.fields[1].type == .integer)
        let error = #expect(throws: EditError.self) { try form.changes(["length": "long"]) }
        #expect(error?.message == "'length' takes an integer, not 'long'")
        #expect(try form.changes(["year": "1959"]) == [.setAttribute([0, 0, 0], key: "year", value: Scalar(.integer, "1959"))])
    }

    @Test("schema errors name the field: unknown type, choice without choices, min above max")
    func schemaErrors() {
        func read(_ field: Doc) -> SchemaError? {
            let doc: Doc = .object([("kinds", .object([("song", .object([("fields", .array([field]))]))]))])
            return #expect(throws: SchemaError.self) { try Schema(tree: doc.tree) }
        }
        #expect(read(.object([("key", .string("x")), ("type", .string("intger"))]))?.message == "unknown field type 'intger' (did you mean 'integer'?)")
        #expect(read(.object([("key", .string("x")), ("type", .string("choice"))]))?.message == "a choice field needs 'choices'")
        #expect(read(.object([("key", .string("x")), ("min", .int(5)), ("max", .int(1))]))?.field == "kinds.song.fields[0]")
        #expect(read(.object([("label", .string("x"))]))?.message == "a field needs a 'key' (the attribute it edits)")
    }
}
