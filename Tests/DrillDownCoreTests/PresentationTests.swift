import Testing
@testable import DrillDownCore

@Suite("Templates, formatters and schemas")
struct PresentationTests {
    @Test("duration formats m:ss, and h:mm:ss past an hour", arguments: [
        ("343", "5:43"), ("3725", "1:02:05"), ("59", "0:59"), ("3600", "1:00:00"), ("abc", "abc"),
    ])
    func duration(input: String, expected: String) {
        #expect(Formatter.duration.format(input) == expected)
    }

    @Test("number, bytes, date, upper and lower")
    func formatters() {
        #expect(Formatter.number.format("1234567") == "1,234,567")
        #expect(Formatter.number.format("-1234.5") == "-1,234.5")
        #expect(Formatter.bytes.format("1536") == "1.5 KB")
        #expect(Formatter.bytes.format("1") == "1 byte")
        #expect(Formatter.bytes.format("3145728") == "3 MB")
        #expect(Formatter.date.format("2026-11-23") == "2026-11-23")
        #expect(Formatter.date.format("2026-11-23T10:50:00Z") == "2026-11-23 10:50")
        #expect(Formatter.date.format("0") == "1970-01-01")
        #expect(Formatter.upper.format("Take Five") == "TAKE FIVE")
        #expect(Formatter.lower.format("Take Five") == "take five")
    }

    @Test("templates fill placeholders and reject unknown formatters")
    func templates() throws {
        let t = try TextTemplate("{name} ({length|duration})")
        #expect(t.render { ["name": "So What", "length": "562"][$0] } == "So What (9:22)")
        #expect(try TextTemplate("{missing}").render { _ in nil } == "")
        #expect(throws: TextTemplate.ParseError.self) { try TextTemplate("{x|shout}") }
        #expect(throws: TextTemplate.ParseError.self) { try TextTemplate("{x") }
    }

    func musicSchema() throws -> Schema {
        let doc: Doc = .object([
            ("title", .string("Music")), ("root", .string("artist")),
            ("kinds", .object([
                ("artist", .object([("title", .string("{name}")), ("children", .string("albums")), ("childKind", .string("album"))])),
                ("album", .object([("title", .string("{title}")), ("image", .string("{art}")), ("children", .string("songs")), ("childKind", .string("song"))])),
                ("song", .object([("title", .string("{name}")), ("subtitle", .string("{length|duration}")), ("select", .string("detail"))])),
            ])),
        ])
        return try Schema(tree: doc.tree)
    }

    func musicLibrary() -> Doc {
        .object([("Title", .string("Library")), ("Rows", .array([
            .object([("name", .string("Miles Davis")), ("albums", .array([
                .object([("title", .string("Kind of Blue")), ("art", .string("art/kob.png")), ("songs", .array([
                    .object([("name", .string("So What")), ("length", .int(562))]),
                ]))]),
            ]))]),
            .object([("name", .string("Live Set")), ("kind", .string("album")), ("songs", .array([
                .object([("name", .string("Broadcast")), ("length", .int(3725))]),
            ]))]),
        ]))])
    }

    @Test("per-kind templates: artist names, album titles with art, song names with m:ss lengths, mixed levels")
    func music() throws {
        let schema = try musicSchema()
        let keys = OutlineKeys.standard.preferring(children: schema.childrenKeys)
        let source = DocumentSource(tree: musicLibrary().tree, keys: keys)
        let presenter = Presenter(source: source, schema: schema)
        #expect(presenter.rootTitle == "Music")
        let artists = presenter.rows(of: source.root)
        #expect(artists.map(\.title) == ["Miles Davis", "Live Set"])
        #expect(artists.map(\.kind) == ["artist", "album"])
        let albums = presenter.rows(of: artists[0].id)
        #expect(albums.first?.title == "Kind of Blue")
        #expect(albums.first?.image == "art/kob.png")
        let songs = presenter.rows(of: albums[0].id)
        #expect(songs.first?.title == "So What")
        #expect(songs.first?.subtitle == "9:22")
        #expect(songs.first?.drills == false)
        #expect(presenter.rows(of: artists[1].id).first?.subtitle == "1:02:05")
        let detail = presenter.detail(of: songs[0].id)
        #expect(detail.fields.map { "\($0.label)=\($0.text)" } == ["Length=9:22"])
        #expect(detail.subtitle == "", "the length shows once, as an attribute, not also under the title")
    }

    @Test("a detail reads as people read: labels from keys, dates, sizes, booleans, no kind bookkeeping")
    func detailFields() throws {
        var sound = Template(kind: "sound")
        sound.subtitle = try TextTemplate("{file}")
        var schema = Schema()
        schema.kinds = [sound]
        let doc: Doc = .object([("Rows", .array([.object([
            ("Title", .string("Ringtone")), ("kind", .string("sound")), ("file", .string("Opening.m4r")),
            ("lastPinged", .string("2026-11-27T19:10:33Z")), ("bytes", .int(11_170_334)),
            ("enabled", .bool(true)), ("album_id", .int(7)), ("version", .string("1.0")),
        ])]))])
        let presenter = Presenter(source: DocumentSource(tree: doc.tree), schema: schema)
        let detail = presenter.detail(of: presenter.source.children(of: presenter.source.root)[0])
        #expect(detail.fields.map { "\($0.label)=\($0.text)" } == [
            "File=Opening.m4r", "Last Pinged=2026-11-27 19:10", "Bytes=10.7 MB", "Enabled=Yes", "Album ID=7", "Version=1.0",
        ])
        #expect(detail.fields[1].style == .date("2026-11-27T19:10:33Z"))
        #expect(detail.fields[3].style == .boolean(true))
        #expect(detail.subtitle == "")
        #expect(Field.readableLabel("HTTPPort") == "HTTP Port")
        #expect(Field.readableLabel("play-count") == "Play Count")
    }

    @Test("schema errors name the field and what was expected")
    func schemaErrors() {
        let bad: Doc = .object([("kinds", .object([("song", .object([("select", .string("jump"))]))]))])
        do {
            _ = try Schema(tree: bad.tree, file: "s.yaml")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "s.yaml: schema field 'kinds.song.select': expected drill, detail, action:NAME or none, found 'jump'")
        }
        let missing: Doc = .object([("root", .string("nope")), ("kinds", .object([]))])
        #expect(throws: SchemaError.self) { try Schema(tree: missing.tree) }
    }

    @Test("a misspelt key is an error naming the key, its place and the nearest known key", arguments: [
        ("titel", "kinds.artist", "did you mean 'title'?"),
        ("childKnd", "kinds.artist", "did you mean 'childKind'?"),
        ("subtitel", "kinds.artist", "did you mean 'subtitle'?"),
        ("Acessory", "kinds.artist", "did you mean 'accessory'?"),
    ])
    func misspeltTemplateKeys(key: String, field: String, hint: String) {
        let bad: Doc = .object([("kinds", .object([
            ("album", .object([("title", .string("{title}"))])),
            ("artist", .object([("title", .string("{name}")), (key, .string("x"))])),
        ]))])
        do {
            _ = try Schema(tree: bad.tree, file: "s.yaml")
            Issue.record("\(key) was accepted")
        } catch {
            #expect(error.description == "s.yaml: schema field '\(field)': unknown key '\(key)' (\(hint))")
            #expect(error.node == [0, 1, 1])
        }
    }

    @Test("unknown keys are refused everywhere in a schema; far-off ones list the known keys")
    func unknownKeysEverywhere() {
        func message(_ doc: Doc) -> String? {
            do { _ = try Schema(tree: doc.tree, file: "s.yaml"); return nil } catch { return error.description }
        }
        #expect(message(.object([("titel", .string("Music"))]))
            == "s.yaml: schema field '(top level)': unknown key 'titel' (did you mean 'title'?)")
        #expect(message(.object([("kinds", .object([("song", .object([("colour", .string("{album}"))]))]))]))
            == "s.yaml: schema field 'kinds.song': unknown key 'colour' (expected one of title, subtitle, image, children, childKind, select, accessory, match, formats, controls, section, index, fields, sort)")
        #expect(message(.object([("kinds", .object([("song", .object([("sectoin", .string("{album}"))]))]))]))
            == "s.yaml: schema field 'kinds.song': unknown key 'sectoin' (did you mean 'section'?)")
        #expect(message(.object([("kinds", .object([("t", .object([("controls", .array([.object([("switch", .string("on")), ("mx", .int(3))])]))]))]))]))
            == "s.yaml: schema field 'kinds.t.controls[0]': unknown key 'mx' (did you mean 'max'?)")
        #expect(message(.object([("actions", .object([("play", .object([("incremnt", .string("plays"))]))]))]))
            == "s.yaml: schema field 'actions.play': unknown key 'incremnt' (did you mean 'increment'?)")
        #expect(message(.object([("levels", .array([.object([("table", .string("a")), ("tilte", .string("name"))])]))]))
            == "s.yaml: schema field 'levels[0]': unknown key 'tilte' (did you mean 'title'?)")
        // Keys match case-insensitively, as they are read; attribute names under formats are free.
        #expect(message(.object([("Title", .string("M")), ("KINDS", .object([("song", .object([
            ("ChildKind", .string("song")), ("formats", .object([("lenght", .string("duration"))])),
        ]))]))])) == nil)
    }

    @Test("spelling suggestions allow about one slip per three letters")
    func spelling() {
        #expect(Spelling.nearest(to: "titel", in: Schema.Keys.template) == "title")
        #expect(Spelling.nearest(to: "imgae", in: Schema.Keys.template) == "image")
        #expect(Spelling.nearest(to: "chidlren", in: Schema.Keys.template) == "children")
        #expect(Spelling.nearest(to: "colour", in: Schema.Keys.template) == nil)
        #expect(Spelling.nearest(to: "", in: Schema.Keys.template) == nil)
        #expect(Spelling.distance(Array("ab".unicodeScalars), Array("ba".unicodeScalars)) == 1)
        #expect(Spelling.distance(Array("kitten".unicodeScalars), Array("sitting".unicodeScalars)) == 3)
    }

    @Test("controls are read from the schema and bound to attribute values")
    func controls() throws {
        let schemaDoc: Doc = .object([("kinds", .object([("toggle", .object([
            ("controls", .array([.object([("switch", .string("enabled"))]), .object([("slider", .string("volume")), ("min", .int(0)), ("max", .int(10))]), .object([("button", .string("Play")), ("action", .string("play"))])])),
        ]))]))])
        let schema = try Schema(tree: schemaDoc.tree)
        let data: Doc = .object([("Rows", .array([row("Ring", [], [("kind", .string("toggle")), ("enabled", .bool(true)), ("volume", .int(7))])]))])
        let presenter = Presenter(source: DocumentSource(tree: data.tree), schema: schema)
        let r = presenter.rows(of: presenter.source.root)[0]
        #expect(r.controls.map(\.control.kind) == [.switch, .slider, .button])
        #expect(r.controls.map(\.value) == ["true", "7", ""])
        #expect(r.controls[1].control.max == 10)
        #expect(r.controls[2].control.target == "play")
    }

    @Test("generic mode: keys and indices are titles, scalars are leaves with values; a scalar document is one leaf")
    func generic() {
        let doc: Doc = .object([("list", .array([.int(1), .string("two")])), ("flag", .bool(true))])
        let source = DocumentSource(tree: doc.tree, name: "x.json")
        #expect(source.mode == .generic)
        #expect(source.rootTitle == "x.json")
        let presenter = Presenter(source: source)
        let rows = presenter.rows(of: source.root)
        #expect(rows.map(\.title) == ["list", "flag"])
        #expect(rows.map(\.subtitle) == ["2 items", "true"])
        #expect(presenter.rows(of: rows[0].id).map(\.title) == ["0", "1"])
        let scalar = DocumentSource(tree: Doc.int(42).tree)
        #expect(scalar.childCount(of: scalar.root) == 0)
        #expect(scalar.value(of: scalar.root) == Scalar(.integer, "42"))
    }
}
