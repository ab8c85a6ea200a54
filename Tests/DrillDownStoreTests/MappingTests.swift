import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

@Suite("Relational mapping: schema and validation")
struct MappingTests {
    /// The error opening the music database with `levels` gives.
    func error(_ levels: [RelationalMapping.Level]) throws -> MappingError? {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        try makeMusicDatabase(at: folder.path("music.db"))
        do {
            _ = try RelationalSource(path: folder.path("music.db"), mapping: RelationalMapping(levels: levels))
            return nil
        } catch let error as MappingError {
            return error
        }
    }

    let artists = RelationalMapping.Level(table: "artists", title: "name", key: "id")
    let albums = RelationalMapping.Level(table: "albums", title: "title", key: "id", parent: "artist_id")

    @Test("the schema's levels list reads into a mapping")
    func fromSchema() throws {
        let schema = Doc.object([
            ("title", .string("Music")),
            ("levels", .array([
                .object([("table", .string("artists")), ("title", .string("name")), ("key", .string("id")), ("kind", .string("artist"))]),
                .object([("table", .string("albums")), ("title", .string("title")), ("parent", .string("artist_id")),
                         ("key", .string("id")), ("order", .string("year, title DESC"))]),
                .object([("name", .string("tracks")), ("table", .string("songs")), ("title", .string("name")),
                         ("parent", .string("album_id")), ("order", .array([.string("track")]))]),
            ])),
        ]).tree
        let mapping = try #require(try RelationalMapping(schema: schema, file: "schema.yaml"))
        #expect(mapping == RelationalMapping(levels: [
            .init(table: "artists", title: "name", key: "id", kind: "artist"),
            .init(table: "albums", title: "title", key: "id", parent: "artist_id", order: ["year", "title DESC"]),
            .init(name: "tracks", table: "songs", title: "name", parent: "album_id", order: ["track"]),
        ]))
        #expect(try RelationalMapping(schema: Doc.object([("kinds", .object([]))]).tree) == nil)
    }

    @Test("a malformed levels list names the entry and field", arguments: [
        (Doc.object([("levels", .string("artists"))]), "non-empty list"),
        (Doc.object([("levels", .array([.string("artists")]))]), "expected a mapping"),
        (Doc.object([("levels", .array([.object([("title", .string("name"))])]))]), "'table' is missing"),
        (Doc.object([("levels", .array([.object([("table", .string("artists"))])]))]), "'title'"),
    ])
    func malformedSchema(doc: Doc, message: String) throws {
        let error = #expect(throws: MappingError.self) { try RelationalMapping(schema: doc.tree, file: "schema.yaml") }
        #expect(error?.problem == .invalid)
        #expect(error?.description.hasPrefix("schema.yaml: level") == true)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test("a missing table names the level and lists the tables")
    func missingTable() throws {
        let e = try #require(try error([artists, .init(table: "albumz", title: "title", parent: "artist_id")]))
        #expect(e.problem == .missingTable)
        #expect(e.level == 2 && e.table == "albumz")
        #expect(e.description.contains("level 2 'albumz', table 'albumz': table 'albumz' does not exist; tables: albums, artists, songs"))
    }

    @Test("a missing title, key or order column names the level, table and column")
    func missingColumn() throws {
        var e = try #require(try error([artists, .init(table: "albums", title: "titel", parent: "artist_id")]))
        #expect(e.problem == .missingColumn && e.column == "titel" && e.table == "albums" && e.level == 2)
        #expect(e.message == "column 'titel' (title) does not exist; columns: id, artist_id, title, year, art")
        e = try #require(try error([.init(table: "artists", title: "name", key: "artist_no")]))
        #expect(e.problem == .missingColumn && e.column == "artist_no" && e.message.contains("(key)"))
        e = try #require(try error([artists, .init(table: "albums", title: "title", parent: "artist_id", order: ["released"])]))
        #expect(e.problem == .missingColumn && e.column == "released" && e.message.contains("(order)"))
    }

    @Test("a level below the first without a parent key, or with one that does not exist, is a missing parent key")
    func missingParentKey() throws {
        var e = try #require(try error([artists, .init(table: "albums", title: "title")]))
        #expect(e.problem == .missingParentKey && e.level == 2 && e.table == "albums" && e.column == nil)
        #expect(e.message.contains("no 'parent' column names the 'artists' row"))
        e = try #require(try error([artists, .init(table: "albums", title: "title", parent: "artist")]))
        #expect(e.problem == .missingParentKey && e.column == "artist")
        #expect(e.message.contains("column 'artist' (parent) does not exist"))
    }

    @Test("levels whose children lead back form a cycle, named with the path that loops")
    func cycle() throws {
        var back = albums
        back.children = "artists"
        var e = try #require(try error([artists, back]))
        #expect(e.problem == .cycle && e.level == 2 && e.levelName == "albums" && e.table == "albums" && e.column == "artist_id")
        #expect(e.message.contains("'artists' → 'albums' → 'artists' is a cycle"))
        let selfReferencing = RelationalMapping.Level(
            name: "category", table: "albums", title: "title", parent: "artist_id", children: "category")
        e = try #require(try error([artists, selfReferencing]))
        #expect(e.problem == .cycle && e.message.contains("'category' → 'category' is a level that contains itself"))
    }

    @Test("children naming an undefined level, duplicate names and unreachable levels are rejected")
    func otherChainErrors() throws {
        var toNowhere = artists
        toNowhere.children = "records"
        var e = try #require(try error([toNowhere, albums]))
        #expect(e.problem == .unknownLevel && e.message.contains("'records'"))
        e = try #require(try error([artists, artists]))
        #expect(e.problem == .invalid && e.message.contains("same name"))
        var skip = artists
        skip.children = "songs"
        e = try #require(try error([skip, albums, .init(table: "songs", title: "name", parent: "album_id")]))
        #expect(e.problem == .invalid && e.levelName == "albums" && e.message.contains("never shown"))
    }

    @Test("the music mapping validates")
    func valid() throws {
        #expect(try error(musicMapping.levels) == nil)
    }
}
