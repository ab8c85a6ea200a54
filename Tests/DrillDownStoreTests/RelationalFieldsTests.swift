import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

/// A relational level's form is its table's columns: SQL types, NOT NULL, defaults and CHECK
/// constraints shape the fields, and a write that breaks a constraint is refused naming the
/// column, never with the database's message (issue 30 item 2).
@Suite("Relational fields")
struct RelationalFieldsTests {
    /// A copy of the Chinook-shaped database (Scripts/make-chinook.py), its mapping and schema as
    /// the generated chinook.schema.yaml gives them, a store over it and a connection to check it.
    struct Chinook {
        let folder: TempFolder
        var store: RelationalStore
        let check: DatabaseQueue
        let schema: Schema

        static let mapping = RelationalMapping(levels: [
            .init(table: "artists", title: "name", key: "id", kind: "artist"),
            .init(table: "albums", title: "title", key: "id", parent: "artist_id", order: ["year", "title"], kind: "album"),
            .init(table: "songs", title: "name", key: "id", parent: "album_id", order: ["track"], kind: "song"),
        ])

        init(song: Template? = nil) throws {
            folder = try TempFolder()
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let script = Process()
            script.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            script.arguments = ["python3", root.appendingPathComponent("Scripts/make-chinook.py").path, folder.url.path]
            script.standardOutput = FileHandle.nullDevice
            try script.run()
            script.waitUntilExit()
            guard script.terminationStatus == 0 else { throw StoreError(file: "make-chinook.py", message: "exited with \(script.terminationStatus)") }
            check = try DatabaseQueue(path: folder.path("chinook.sqlite"))
            store = try RelationalStore(path: folder.path("chinook.sqlite"), mapping: Self.mapping, rootTitle: "Chinook")
            var schema = Schema()
            var songKind = song ?? Template(kind: "song")
            songKind.formats["length"] = [.duration]
            schema.kinds = [Template(kind: "artist"), Template(kind: "album"), songKind]
            self.schema = schema
        }

        var source: any Source { store.snapshot }
        func node(_ path: TreePath) throws -> NodeID { try #require(source.node(at: path)) }
        func rows(_ sql: String, _ arguments: StatementArguments = []) throws -> [[DatabaseValue]] {
            try check.read { db in try GRDB.Row.fetchAll(db, sql: sql, arguments: arguments).map { Array($0.databaseValues) } }
        }
        /// Every song, every column, in key order.
        func songs() throws -> [[DatabaseValue]] { try rows("SELECT * FROM songs ORDER BY id") }
        /// The key of the first album of the first artist (the row at [0, 0]).
        func firstAlbum() throws -> Int64 {
            try #require(try rows("SELECT id FROM albums WHERE artist_id = 1 ORDER BY year, title, id LIMIT 1").first.flatMap { Int64.fromDatabaseValue($0[0]) })
        }
        func cleanUp() { folder.cleanUp() }
    }

    @Test("the Add form of a song is the songs table's columns: Name and Length required, length a duration, genre a choice, plays defaulted")
    func newSongForm() throws {
        var chinook = try Chinook()
        defer { chinook.cleanUp() }
        let form = FieldForm(source: chinook.source, schema: chinook.schema, newChildOf: try chinook.node([0, 0]))
        #expect(form.kind == "song")
        #expect(form.fields.map(\.key) == ["name", "length", "composer", "genre", "plays"])
        let name = try #require(form.field("name")), length = try #require(form.field("length"))
        #expect(name.isTitle && name.label == "Name" && name.required && name.type == .text)
        #expect(length.label == "length" && length.required && length.type == .duration && length.min == 1)
        #expect(form.fields.filter(\.required).map(\.label) == ["Name", "length"])
        let genre = try #require(form.field("genre"))
        #expect(genre.type == .choice && genre.choices == ["Rock", "Jazz", "Metal", "Blues"] && !genre.required)
        let plays = try #require(form.field("plays"))
        #expect(plays.type == .integer && !plays.required && plays.defaultText == "0")
        #expect(form.field("composer")?.type == .text && form.field("composer")?.required == false)
        #expect(form.field("track") == nil && form.field("album_id") == nil && form.field("id") == nil)

        // An album without songs yet: the form still comes from the songs level, kind and all.
        let paths = try chinook.store.apply([.insert(NewNode(title: "Empty", attributes: [Attribute(key: "year", value: Scalar(.integer, "2030"))]), parent: [0], index: nil)])
        let empty = FieldForm(source: chinook.source, schema: chinook.schema, newChildOf: try chinook.node(paths[0]))
        #expect(empty.kind == "song" && empty.field("length")?.type == .duration)
        // Artists: a nullable genre without a CHECK is plain text.
        let artist = FieldForm(source: chinook.source, schema: chinook.schema, newChildOf: chinook.source.root)
        #expect(artist.fields.map(\.key) == ["name", "genre"] && artist.field("genre")?.type == .text)
    }

    @Test("a song's Edit form shows its columns with their values; length as m:ss")
    func songEditForm() throws {
        let chinook = try Chinook()
        defer { chinook.cleanUp() }
        let song = try chinook.node([0, 0, 0])
        let form = FieldForm(source: chinook.source, schema: chinook.schema, node: song)
        #expect(form.fields.map(\.key) == ["name", "track", "length", "composer", "genre", "plays"])
        #expect(form.field("track")?.type == .integer && form.field("track")?.required == true && form.text(of: form.field("track")!) == "1")
        let length = try #require(chinook.rows("SELECT length FROM songs WHERE album_id = ? ORDER BY track LIMIT 1", [try chinook.firstAlbum()]).first?.first)
        let seconds = try #require(Int64.fromDatabaseValue(length))
        #expect(form.text(of: try #require(form.field("length"))) == String(format: "%d:%02d", seconds / 60, seconds % 60))
        #expect(form.text(of: try #require(form.titleField)) == chinook.source.title(of: song))
        // Every song submitted as shown (NULL composers included) is no change.
        for path in [[0, 0, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]] as [TreePath] {
            let shown = FieldForm(source: chinook.source, schema: chinook.schema, node: try chinook.node(path))
            #expect(try shown.changes(Dictionary(uniqueKeysWithValues: shown.fields.map { ($0.key, shown.text(of: $0)) })) == [], "\(path)")
        }
    }

    @Test("a new song typed into the form lands in songs with length 3:43 stored as 223, the next track and the default plays")
    func addSong() throws {
        var chinook = try Chinook()
        defer { chinook.cleanUp() }
        let album = try chinook.firstAlbum()
        let form = FieldForm(source: chinook.source, schema: chinook.schema, newChildOf: try chinook.node([0, 0]))
        let node = try form.newNode(["name": "Blue in Green", "length": "3:43", "genre": "jazz"])
        let before = try chinook.rows("SELECT MAX(track) FROM songs WHERE album_id = ?", [album])[0][0]
        let paths = try chinook.store.apply([.insert(node, parent: [0, 0], index: nil)])
        let row = try chinook.rows("SELECT album_id, length, typeof(length), track, genre, composer, plays FROM songs WHERE name = 'Blue in Green'")
        #expect(row == [[album.databaseValue, 223.databaseValue, "integer".databaseValue, ((Int64.fromDatabaseValue(before) ?? 0) + 1).databaseValue,
                         "Jazz".databaseValue, .null, 0.databaseValue]])
        #expect(chinook.source.title(of: try chinook.node(paths[0])) == "Blue in Green")
    }

    @Test("editing a song's composer in its form updates that one row")
    func editComposer() throws {
        var chinook = try Chinook()
        defer { chinook.cleanUp() }
        let before = try chinook.songs()
        let song = try chinook.node([0, 0, 1])
        let form = FieldForm(source: chinook.source, schema: chinook.schema, node: song)
        let changes = try form.changes(["name": chinook.source.title(of: song), "length": form.text(of: form.field("length")!), "composer": "Ella Fitzgerald"])
        #expect(changes == [.setAttribute([0, 0, 1], key: "composer", value: Scalar(.string, "Ella Fitzgerald"))])
        _ = try chinook.store.apply(changes)
        let after = try chinook.songs()
        let changed = zip(before, after).filter { $0 != $1 }
        #expect(before.count == after.count && changed.count == 1)
        #expect(changed.first?.1[5] == "Ella Fitzgerald".databaseValue)
        #expect(chinook.source.attribute("composer", of: try chinook.node([0, 0, 1])) == Scalar(.string, "Ella Fitzgerald"))
    }

    @Test("a CHECK violation sent as a typed value (length 0, genre 'Polka') is refused naming the column and its rule; nothing is written")
    func checkViolations() throws {
        var chinook = try Chinook()
        defer { chinook.cleanUp() }
        let before = try chinook.songs()
        let cases: [(Change, String, String)] = [
            (.setAttribute([0, 0, 0], key: "length", value: Scalar(.integer, "0")), "length", "'length' must be greater than 0, not 0 (CHECK length > 0)"),
            (.setAttribute([0, 0, 0], key: "genre", value: Scalar(.string, "Polka")), "genre",
             "'genre' must be one of Rock, Jazz, Metal, Blues, not 'Polka' (CHECK genre IN ('Rock', 'Jazz', 'Metal', 'Blues'))"),
            (.insert(NewNode(title: "Polka Dots", attributes: [Attribute(key: "length", value: Scalar(.integer, "200")), Attribute(key: "genre", value: Scalar(.string, "Polka"))]),
                     parent: [0, 0], index: nil), "genre", "'genre' must be one of"),
            (.insert(NewNode(title: "Zero", attributes: [Attribute(key: "length", value: Scalar(.integer, "-5"))]), parent: [0, 0], index: nil),
             "length", "'length' must be greater than 0, not -5"),
        ]
        for (change, column, message) in cases {
            let error = #expect(throws: EditError.self) { try chinook.store.apply([change]) }
            #expect(error?.field == column, "\(change)")
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("nothing was changed") == true)
            #expect(error?.message.contains("constraint failed") == false)
            #expect(error?.reason == .invalid)
        }
        #expect(try chinook.songs() == before)
    }

    @Test("a missing NOT NULL column is refused naming it, by the form and by the store; nothing is written")
    func missingNotNull() throws {
        var chinook = try Chinook()
        defer { chinook.cleanUp() }
        let form = FieldForm(source: chinook.source, schema: chinook.schema, newChildOf: try chinook.node([0, 0]))
        let refused = #expect(throws: EditError.self) { try form.newNode(["name": "No Length"]) }
        #expect(refused?.field == "length" && refused?.message == "'length' is required")
        let before = try chinook.songs()
        let error = #expect(throws: EditError.self) { try chinook.store.apply([.insert(NewNode(title: "No Length"), parent: [0, 0], index: nil)]) }
        #expect(error?.field == "length")
        #expect(error?.message.contains("column 'length' is NOT NULL without a default") == true)
        let cleared = #expect(throws: EditError.self) { try chinook.store.apply([.setAttribute([0, 0, 0], key: "length", value: nil)]) }
        #expect(cleared?.field == "length" && cleared?.message.hasPrefix("'length' is required") == true)
        #expect(try chinook.songs() == before)
    }

    @Test("the kind's declared fields: override a column's label, type and choices; a required column stays required")
    func declaredFields() throws {
        var song = Template(kind: "song")
        song.fields = [
            Field(key: "composer", label: "Written by"), Field(key: "genre", choices: ["Rock", "Jazz"]),
            Field(key: "length", required: false), Field(key: "name", label: "Song"),
        ]
        let chinook = try Chinook(song: song)
        defer { chinook.cleanUp() }
        let form = FieldForm(source: chinook.source, schema: chinook.schema, node: try chinook.node([0, 0, 0]))
        #expect(form.field("composer")?.label == "Written by")
        #expect(form.field("genre")?.choices == ["Rock", "Jazz"])
        #expect(form.field("length")?.required == true && form.field("length")?.type == .duration)
        #expect(form.titleField?.label == "Song" && form.titleField?.type == .text)
    }

    @Test("constraints the store cannot check itself are still refused naming the column: a CHECK it does not parse, UNIQUE, a FOREIGN KEY")
    func databaseRefusals() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let queue = try DatabaseQueue(path: folder.path("notes.db"))
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE tags(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                INSERT INTO tags VALUES (1, 'home');
                CREATE TABLE notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT CONSTRAINT short_body CHECK (length(body) < 10 OR body IS NULL),
                    code TEXT UNIQUE, tag_id INTEGER REFERENCES tags(id), due DATE, done BOOLEAN NOT NULL DEFAULT FALSE, price REAL CHECK (price >= 0));
                INSERT INTO notes(title, code) VALUES ('First', 'A');
                """)
        }
        var store = try RelationalStore(path: folder.path("notes.db"), mapping: RelationalMapping(levels: [.init(table: "notes", title: "title")]))
        let form = FieldForm(source: store.snapshot, schema: Schema(), newChildOf: store.snapshot.root)
        #expect(form.fields.map(\.key) == ["title", "body", "code", "tag_id", "due", "done", "price"])
        #expect(form.field("due")?.type == .date && form.field("done")?.type == .boolean && form.field("done")?.defaultText == "FALSE")
        #expect(form.field("price")?.type == .number && form.field("price")?.min == 0)
        let cases: [(Attribute, String, String)] = [
            (Attribute(key: "body", value: Scalar(.string, "far too long a body")), "body", "'body' must meet CHECK length(body) < 10 OR body IS NULL"),
            (Attribute(key: "code", value: Scalar(.string, "A")), "code", "'code' must be unique: another row of 'notes' has the same value"),
            (Attribute(key: "tag_id", value: Scalar(.integer, "7")), "tag_id", "'tag_id' must refer to an existing row of 'tags' (FOREIGN KEY)"),
            (Attribute(key: "price", value: Scalar(.real, "-0.5")), "price", "'price' must be at least 0, not -0.5 (CHECK price >= 0)"),
        ]
        for (attribute, column, message) in cases {
            let error = #expect(throws: EditError.self) { try store.apply([.insert(NewNode(title: "Second", attributes: [attribute]), parent: .root, index: nil)]) }
            #expect(error?.field == column)
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("constraint failed") == false)
            guard column != "code" else { continue }  // the first note has that code already
            let update = #expect(throws: EditError.self) { try store.apply([.setAttribute([0], key: attribute.key, value: attribute.value)]) }
            #expect(update?.field == column && update?.path == [0])
        }
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notes") } == 1)
        // A date typed into the form is stored as ISO 8601 text in the DATE column.
        let node = try form.newNode(["title": "Dated", "due": "2026-12-01", "done": "yes"])
        _ = try store.apply([.insert(node, parent: .root, index: nil)])
        #expect(try queue.read { db in try String.fetchOne(db, sql: "SELECT due || ' ' || done FROM notes WHERE title = 'Dated'") } == "2026-12-01 1")
        // A BOOLEAN column reads as true/false, so its form's unchanged text changes nothing.
        let dated = try #require(store.snapshot.node(at: [1]))
        #expect(store.snapshot.attribute("done", of: dated) == Scalar(.bool, "true"))
        let edit = FieldForm(source: store.snapshot, schema: Schema(), node: dated)
        let unchanged = try edit.changes(Dictionary(uniqueKeysWithValues: edit.fields.map { ($0.key, edit.text(of: $0)) }))
        #expect(unchanged == [], "\(unchanged)")
    }

    @Test("CHECK expressions: the simple conditions are picked out of SQLite's text and PostgreSQL's definitions; the rest is left to the database")
    func checkParsing() throws {
        let columns = ["length", "genre", "rating", "name", "price"]
        let sql = """
            CREATE TABLE songs(name TEXT NOT NULL CHECK (name <> ''), length INTEGER NOT NULL CHECK(length>0),
              "genre" TEXT CHECK ("genre" IN ('Rock', 'Jazz')), rating INTEGER CONSTRAINT stars CHECK (rating BETWEEN 0 AND 5),
              price REAL, CHECK (price >= 0 AND price < 1000), CHECK (price > 0 OR name = 'free'), -- CHECK (length > 99)
              CHECK (-1 < rating))
            """
        let checks = TableCheck.all(inCreateTable: sql, columns: columns)
        #expect(checks.map(\.expression) == ["name <> ''", "length>0", "\"genre\" IN ('Rock', 'Jazz')", "rating BETWEEN 0 AND 5",
                                             "price >= 0 AND price < 1000", "price > 0 OR name = 'free'", "-1 < rating"])
        #expect(checks.map(\.columns) == [["name"], ["length"], ["genre"], ["rating"], ["price"], ["name", "price"], ["rating"]])
        #expect(checks[3].name == "stars" && checks[0].name == nil)
        #expect(checks.map { $0.rules.map(\.condition) } == [
            [.differs("")], [.compared(">", 0)], [.oneOf(["Rock", "Jazz"])], [.compared(">=", 0), .compared("<=", 5)],
            [.compared(">=", 0), .compared("<", 1000)], [], [.compared(">", -1)],
        ])
        let pg = [
            ("CHECK ((length > 0))", [ColumnRule.Condition.compared(">", 0)]),
            ("CHECK ((genre = ANY (ARRAY['Rock'::text, 'Jazz'::text])))", [.oneOf(["Rock", "Jazz"])]),
            ("CHECK (((genre)::text = ANY ((ARRAY['Rock'::character varying, 'Jazz'::character varying])::text[])))", [.oneOf(["Rock", "Jazz"])]),
            ("CHECK (((rating >= 0) AND (rating <= 5)))", [.compared(">=", 0), .compared("<=", 5)]),
            ("CHECK ((price >= (0)::numeric))", [.compared(">=", 0)]),
            ("CHECK ((length(name) > 0))", []),
        ]
        for (definition, conditions) in pg {
            let check = try #require(TableCheck(name: "c", definition: definition, columns: columns))
            #expect(check.rules.map(\.condition) == conditions, "\(definition)")
        }
        #expect(TableCheck(name: "c", definition: "CHECK ((length > 0))", columns: columns)?.expression == "length > 0")
        #expect(TableCheck(name: "c", definition: pg[2].0, columns: columns)?.expression == "genre IN ('Rock', 'Jazz')")
        #expect(TableCheck(name: "c", definition: pg[5].0, columns: columns)?.expression == "length(name) > 0")
    }
}
