import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownPostgres
@testable import DrillDownStore

extension PostgresRelationalTests {
    /// Chinook-shaped tables on PostgreSQL (one artist, one album, two songs), with every kind of
    /// constraint, and the store over them through the mapping.
    struct ChinookOnPostgres {
        let pg: PGLevels
        var store: RelationalStore
        let schema: Schema
        let songs: String

        init() throws {
            pg = try PGLevels()
            let (artists, albums, songs) = (pg.name("artists"), pg.name("albums"), pg.name("songs"))
            self.songs = songs
            try pg.execute("CREATE TABLE \(artists) (id bigserial PRIMARY KEY, name text NOT NULL)")
            try pg.execute("CREATE TABLE \(albums) (id bigserial PRIMARY KEY, artist_id bigint NOT NULL REFERENCES \(artists)(id), title text NOT NULL, year integer)")
            try pg.execute("""
                CREATE TABLE \(songs) (id bigserial PRIMARY KEY, album_id bigint NOT NULL REFERENCES \(albums)(id), name text NOT NULL,
                    track integer NOT NULL, length integer NOT NULL CHECK (length > 0), composer text,
                    genre varchar(10) CHECK (genre IN ('Rock', 'Jazz', 'Metal', 'Blues')), plays integer NOT NULL DEFAULT 0,
                    isrc text UNIQUE, price numeric(6, 2) CHECK (price >= 0 AND price < 100), released date,
                    CONSTRAINT short_composer CHECK (char_length(composer) < 20))
                """)
            try pg.execute("INSERT INTO \(artists) (name) VALUES ('Miles Davis')")
            try pg.execute("INSERT INTO \(albums) (artist_id, title, year) VALUES (1, 'Kind of Blue', 1959)")
            try pg.execute("""
                INSERT INTO \(songs) (album_id, name, track, length, composer, genre, isrc)
                VALUES (1, 'So What', 1, 562, 'Miles Davis', 'Jazz', 'A1'), (1, 'Freddie Freeloader', 2, 589, NULL, 'Jazz', 'A2')
                """)
            let mapping = RelationalMapping(levels: [
                .init(name: "artists", table: artists, title: "name", key: "id", kind: "artist"),
                .init(name: "albums", table: albums, title: "title", key: "id", parent: "artist_id", order: ["year", "title"], kind: "album"),
                .init(name: "songs", table: songs, title: "name", key: "id", parent: "album_id", order: ["track"], kind: "song"),
            ])
            store = try PostgresLevels(pg.location, mapping: mapping, editable: true).store(rootTitle: "Music")
            var song = Template(kind: "song")
            song.formats["length"] = [.duration]
            var schema = Schema()
            schema.kinds = [song]
            self.schema = schema
        }

        var source: any Source { store.snapshot }
        func node(_ path: TreePath) throws -> NodeID { try #require(source.node(at: path)) }
        func rows() throws -> [[DatabaseValue]] { try pg.rows("SELECT * FROM \(songs) ORDER BY id") }
    }

    @Test("PostgreSQL: the songs table's columns shape the Add and Edit forms; a new song's 5:37 is stored as 337; a composer edit updates one row")
    func postgresFields() throws {
        var chinook = try ChinookOnPostgres()
        defer { chinook.pg.drop() }
        let form = FieldForm(source: chinook.source, schema: chinook.schema, newChildOf: try chinook.node([0, 0]))
        #expect(form.kind == "song")
        #expect(form.fields.map(\.key) == ["name", "length", "composer", "genre", "plays", "isrc", "price", "released"])
        #expect(form.fields.filter(\.required).map(\.label) == ["Name", "length"])
        #expect(form.field("length")?.type == .duration && form.field("length")?.min == 1)
        #expect(form.field("genre")?.choices == ["Rock", "Jazz", "Metal", "Blues"])
        #expect(form.field("plays")?.defaultText == "0" && form.field("plays")?.type == .integer)
        #expect(form.field("price")?.type == .number && form.field("price")?.min == 0 && form.field("price")?.max == nil)
        #expect(form.field("released")?.type == .date)

        let node = try form.newNode(["name": "Blue in Green", "length": "5:37", "genre": "jazz", "price": "1.5", "released": "1959-08-17"])
        _ = try chinook.store.apply([.insert(node, parent: [0, 0], index: nil)])
        let added = try chinook.pg.rows("SELECT length, track, plays, genre, price::text, released::text FROM \(chinook.songs) WHERE name = 'Blue in Green'")
        #expect(added == [[337.databaseValue, 3.databaseValue, 0.databaseValue, "Jazz".databaseValue, "1.50".databaseValue, "1959-08-17".databaseValue]])

        let before = try chinook.rows()
        let song = try chinook.node([0, 0, 1])
        let edit = FieldForm(source: chinook.source, schema: chinook.schema, node: song)
        #expect(edit.text(of: try #require(edit.field("length"))) == "9:49")
        #expect(edit.fields.map(\.key) == ["name", "track", "length", "composer", "genre", "plays", "isrc", "price", "released"])
        #expect(try edit.changes(Dictionary(uniqueKeysWithValues: edit.fields.map { ($0.key, edit.text(of: $0)) })) == [], "submitted as shown: no change")
        _ = try chinook.store.apply(try edit.changes(["composer": "Miles Davis"]))
        let after = try chinook.rows()
        let changed = zip(before, after).filter { $0 != $1 }
        #expect(changed.count == 1 && changed.first?.1[5] == "Miles Davis".databaseValue && changed.first?.1[2] == "Freddie Freeloader".databaseValue)
    }

    @Test("PostgreSQL: CHECK, NOT NULL and UNIQUE violations are refused naming the column and its rule, never the server's message; nothing is written")
    func postgresConstraintViolations() throws {
        var chinook = try ChinookOnPostgres()
        defer { chinook.pg.drop() }
        let before = try chinook.rows()
        let cases: [(Change, String, String)] = [
            (.setAttribute([0, 0, 0], key: "length", value: Scalar(.integer, "0")), "length", "'length' must be greater than 0, not 0 (CHECK length > 0)"),
            (.setAttribute([0, 0, 0], key: "genre", value: Scalar(.string, "Polka")), "genre",
             "'genre' must be one of Rock, Jazz, Metal, Blues, not 'Polka' (CHECK genre IN ('Rock', 'Jazz', 'Metal', 'Blues'))"),
            (.setAttribute([0, 0, 0], key: "price", value: Scalar(.real, "100.5")), "price", "'price' must be less than 100, not 100.5 (CHECK price >= 0 AND price < 100)"),
            (.setAttribute([0, 0, 0], key: "isrc", value: Scalar(.string, "A2")), "isrc", "'isrc' must be unique: another row of '\(chinook.songs)' has the same value"),
            (.setAttribute([0, 0, 0], key: "composer", value: Scalar(.string, "Somebody With A Very Long Name")), "composer",
             "'composer' must meet CHECK char_length(composer) < 20"),
            (.setAttribute([0, 0, 0], key: "length", value: nil), "length", "'length' is required"),
            (.insert(NewNode(title: "No Length"), parent: [0, 0], index: nil), "length", "column 'length' is NOT NULL without a default"),
            (.insert(NewNode(title: "Polka", attributes: [Attribute(key: "length", value: Scalar(.integer, "100")), Attribute(key: "genre", value: Scalar(.string, "Polka"))]),
                     parent: [0, 0], index: nil), "genre", "'genre' must be one of"),
        ]
        for (change, column, message) in cases {
            let error = #expect(throws: EditError.self) { try chinook.store.apply([change]) }
            #expect(error?.field == column, "\(change)")
            #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("violates") == false, "\(error?.message ?? "")")
            #expect(error?.reason == .invalid)
        }
        #expect(try chinook.rows() == before)
        // The store still writes after the refusals (each rolled back its own transaction).
        _ = try chinook.store.apply([.setAttribute([0, 0, 0], key: "length", value: Scalar(.integer, "563"))])
        #expect(try chinook.pg.rows("SELECT length FROM \(chinook.songs) WHERE name = 'So What'") == [[563.databaseValue]])
    }
}
