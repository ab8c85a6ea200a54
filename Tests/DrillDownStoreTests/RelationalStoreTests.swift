import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

/// Editing an existing database through its `levels:` mapping (the music example's, issue 10 item 3).
@Suite("Relational store")
struct RelationalStoreTests {
    /// A music database in a temp folder, a store over it, and a connection for checking the tables.
    struct Music {
        let folder: TempFolder
        var store: RelationalStore
        let check: DatabaseQueue
        var path: String { folder.path("music.db") }

        init(artists: Int = 3, mapping: RelationalMapping = musicMapping, setUp: String? = nil) throws {
            folder = try TempFolder()
            try makeMusicDatabase(at: folder.path("music.db"), artists: artists)
            check = try DatabaseQueue(path: folder.path("music.db"))
            if let setUp { try check.write { try $0.execute(sql: setUp) } }
            store = try RelationalStore(path: folder.path("music.db"), mapping: mapping, rootTitle: "Music")
        }

        var source: any Source { store.snapshot }
        func titles(_ path: TreePath) -> [String] {
            let s = source
            return s.children(of: s.node(at: path)!).map { s.title(of: $0) }
        }
        func rows(_ sql: String, _ arguments: StatementArguments = []) throws -> [[DatabaseValue]] {
            try check.read { db in try GRDB.Row.fetchAll(db, sql: sql, arguments: arguments).map { Array($0.databaseValues) } }
        }
        func count(_ sql: String) throws -> Int { try check.read { db in try Int.fetchOne(db, sql: sql) ?? -1 } }
        func cleanUp() { folder.cleanUp() }
    }

    @Test("insert: an INSERT with the parent's key, the title, typed attributes and the next track")
    func insert() throws {
        var music = try Music()
        defer { music.cleanUp() }
        let node = NewNode(title: "Nardis", attributes: [Attribute(key: "length", value: Scalar(.integer, "351")),
                                                         Attribute(key: "rating", value: Scalar(.string, "4.5"))])
        let paths = try music.store.apply([.insert(node, parent: [0, 0], index: nil)])
        #expect(paths == [[0, 0, 3]])
        #expect(music.titles([0, 0]) == ["Song 1.1.1", "Song 1.1.2", "Song 1.1.3", "Nardis"])
        let album = try music.rows("SELECT id FROM albums WHERE title = 'Album 1.1'")[0][0]
        let row = try music.rows("SELECT album_id, track, length, typeof(length), rating, typeof(rating) FROM songs WHERE name = 'Nardis'")
        #expect(row == [[album, 4.databaseValue, 351.databaseValue, "integer".databaseValue, 4.5.databaseValue, "real".databaseValue]])
        #expect(music.source.attribute("length", of: music.source.node(at: [0, 0, 3])!) == Scalar(.integer, "351"))
        // At the root: an artist, no parent column.
        #expect(try music.store.apply([.insert(NewNode(title: "Bill Evans"), parent: .root, index: nil)]) == [[3]])
        #expect(try music.count("SELECT COUNT(*) FROM artists WHERE name = 'Bill Evans'") == 1)
    }

    @Test("insert at an index renumbers the track column of the rows after it")
    func insertAtIndex() throws {
        var music = try Music()
        defer { music.cleanUp() }
        #expect(try music.store.apply([.insert(NewNode(title: "Intro"), parent: [1, 0], index: 0)]) == [[1, 0, 0]])
        #expect(music.titles([1, 0]) == ["Intro", "Song 2.1.1", "Song 2.1.2", "Song 2.1.3"])
        let album = try music.rows("SELECT id FROM albums WHERE title = 'Album 2.1'")[0][0]
        let tracks = try music.rows("SELECT name, track FROM songs WHERE album_id = ? ORDER BY track", [album])
        #expect(tracks.map { $0[1] } == [1, 2, 3, 4].map(\.databaseValue))
        #expect(tracks.map { $0[0] } == ["Intro", "Song 2.1.1", "Song 2.1.2", "Song 2.1.3"].map(\.databaseValue))
    }

    @Test("rename is an UPDATE of the title column; set converts to the column's type")
    func renameAndSet() throws {
        var music = try Music()
        defer { music.cleanUp() }
        _ = try music.store.apply([.updateTitle([0, 1, 2], title: "So What")])
        #expect(try music.count("SELECT COUNT(*) FROM songs WHERE name = 'So What'") == 1)
        #expect(music.source.title(of: music.source.node(at: [0, 1, 2])!) == "So What")
        _ = try music.store.apply([.setAttribute([0, 1, 2], key: "LENGTH", value: Scalar(.string, "562"))])
        #expect(try music.rows("SELECT length, typeof(length) FROM songs WHERE name = 'So What'") == [[562.databaseValue, "integer".databaseValue]])
        _ = try music.store.apply([.setAttribute([0], key: "country", value: Scalar(.integer, "1"))])
        #expect(try music.rows("SELECT country, typeof(country) FROM artists WHERE id = 1") == [["1".databaseValue, "text".databaseValue]])
        _ = try music.store.apply([.setAttribute([0], key: "country", value: nil)])
        #expect(try music.rows("SELECT country FROM artists WHERE id = 1") == [[.null]])
    }

    @Test("an unknown column, a non-number for an INTEGER column and NULL for a NOT NULL column are clear errors; nothing changes")
    func badSets() throws {
        var music = try Music()
        defer { music.cleanUp() }
        let before = try music.rows("SELECT * FROM songs ORDER BY id")
        let unknown = #expect(throws: EditError.self) { _ = try music.store.apply([.setAttribute([0, 0, 0], key: "colour", value: Scalar(.string, "red"))]) }
        #expect(unknown?.message.contains("no column 'colour'; its columns: name, track, length, rating, cover") == true, "\(unknown?.message ?? "")")
        let type = #expect(throws: EditError.self) { _ = try music.store.apply([.setAttribute([0, 0, 0], key: "length", value: Scalar(.string, "long"))]) }
        #expect(type?.message.contains("'length'") == true && type?.message.contains("INTEGER") == true, "\(type?.message ?? "")")
        let null = #expect(throws: EditError.self) { _ = try music.store.apply([.setAttribute([0, 0, 0], key: "name", value: nil)]) }
        #expect(null?.message.contains("NOT NULL") == true)
        // A step is all or nothing: the rename before the bad change is rolled back too.
        #expect(throws: EditError.self) {
            _ = try music.store.apply([.updateTitle([0, 0, 0], title: "Renamed"), .setAttribute([0, 0, 0], key: "nope", value: nil)])
        }
        #expect(try music.rows("SELECT * FROM songs ORDER BY id") == before)
        #expect(music.titles([0, 0])[0] == "Song 1.1.1")
        #expect(!music.store.canUndo)
    }

    @Test("a NOT NULL column without a default that nothing fills is named; the mapping's defaults: fill it")
    func notNullAndDefaults() throws {
        let setUp = "ALTER TABLE songs ADD COLUMN composer TEXT NOT NULL DEFAULT ''; CREATE TABLE notes(x); "
        var music = try Music(setUp: setUp)
        defer { music.cleanUp() }
        // albums.title is NOT NULL (filled by the title); a new NOT NULL column without a default:
        try music.check.writeWithoutTransaction { db in
            try db.execute(sql: """
                PRAGMA foreign_keys = OFF;
                CREATE TABLE albums2(id INTEGER PRIMARY KEY, artist_id INTEGER NOT NULL, title TEXT NOT NULL, label TEXT NOT NULL, year INTEGER);
                INSERT INTO albums2 SELECT id, artist_id, title, 'Columbia', year FROM albums;
                DROP TABLE albums; ALTER TABLE albums2 RENAME TO albums;
                """)
        }
        var levels = musicMapping.levels
        music.store = try RelationalStore(path: music.path, mapping: RelationalMapping(levels: levels))
        let error = #expect(throws: EditError.self) { _ = try music.store.apply([.insert(NewNode(title: "New"), parent: [0], index: nil)]) }
        #expect(error?.message.contains("column 'label' is NOT NULL without a default") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("defaults:") == true)
        #expect(try music.count("SELECT COUNT(*) FROM albums WHERE title = 'New'") == 0)
        levels[1].defaults = ["label": "Blue Note", "year": "1964"]
        music.store = try RelationalStore(path: music.path, mapping: RelationalMapping(levels: levels))
        _ = try music.store.apply([.insert(NewNode(title: "New"), parent: [0], index: nil)])
        #expect(try music.rows("SELECT label, year, typeof(year) FROM albums WHERE title = 'New'") == [["Blue Note".databaseValue, 1964.databaseValue, "integer".databaseValue]])
        // A value the change gives wins over the default.
        _ = try music.store.apply([.insert(NewNode(title: "Newer", attributes: [Attribute(key: "label", value: Scalar(.string, "Impulse!"))]), parent: [0], index: nil)])
        #expect(try music.rows("SELECT label FROM albums WHERE title = 'Newer'") == [["Impulse!".databaseValue]])
    }

    @Test("delete removes the row and, level by level, the rows below it, in one transaction")
    func cascadingDelete() throws {
        var music = try Music()
        defer { music.cleanUp() }
        #expect(try music.store.apply([.delete([1])]) == [[1]])
        #expect(try music.count("SELECT COUNT(*) FROM artists WHERE id = 2") == 0)
        #expect(try music.count("SELECT COUNT(*) FROM albums WHERE artist_id = 2") == 0)
        #expect(try music.count("SELECT COUNT(*) FROM songs") == 12, "the deleted artist's 6 songs are gone")
        #expect(music.titles(.root) == ["Artist 1", "Artist 3"])
        #expect(music.titles([1]) == ["Album 3.1", "Album 3.2"])

        // A failure half way (a trigger refusing the artist row) leaves every row in place.
        try music.check.write { db in
            try db.execute(sql: "CREATE TRIGGER keep BEFORE DELETE ON artists WHEN old.id = 3 BEGIN SELECT RAISE(ABORT, 'artist 3 is kept'); END")
        }
        let error = #expect(throws: EditError.self) { _ = try music.store.apply([.delete([1])]) }
        #expect(error?.message.contains("artist 3 is kept") == true)
        #expect(try music.count("SELECT COUNT(*) FROM songs") == 12, "the songs deleted before the failure are back")
        #expect(try music.count("SELECT COUNT(*) FROM albums") == 4)
        #expect(music.titles([1, 1]).count == 3)
    }

    @Test("undo puts deleted rows back with their keys; redo deletes them again")
    func undoRedo() throws {
        var music = try Music()
        defer { music.cleanUp() }
        let before = try music.rows("SELECT * FROM songs ORDER BY id") + music.rows("SELECT * FROM albums ORDER BY id")
        let shown = dump(music.source)
        _ = try music.store.apply([.delete([0])])
        _ = try music.store.apply([.updateTitle([0, 0], title: "Renamed"), .insert(NewNode(title: "Extra"), parent: [0, 0], index: 1)])
        #expect(try music.store.undo()?.changes.count == 2)
        #expect(try music.store.undo()?.changes == [.delete([0])])
        #expect(try music.store.undo() == nil)
        #expect(try music.rows("SELECT * FROM songs ORDER BY id") + music.rows("SELECT * FROM albums ORDER BY id") == before)
        #expect(dump(music.source) == shown)
        #expect(try music.store.redo()?.changes == [.delete([0])])
        #expect(try music.count("SELECT COUNT(*) FROM artists WHERE id = 1") == 0)
        _ = try music.store.redo()
        #expect(music.titles([0, 0]) == ["Song 2.1.1", "Extra", "Song 2.1.2", "Song 2.1.3"])
        #expect(dump(music.source) == dump(try reloaded(music)))
    }

    @Test("undo refuses to overwrite a row another writer changed since")
    func undoAfterOtherWriter() throws {
        var music = try Music()
        defer { music.cleanUp() }
        _ = try music.store.apply([.updateTitle([0], title: "Mine")])
        try music.check.write { try $0.execute(sql: "UPDATE artists SET name = 'Theirs' WHERE id = 1") }
        let error = #expect(throws: EditError.self) { try music.store.undo() }
        #expect(error?.message.contains("changed by another writer") == true)
        #expect(try music.rows("SELECT name FROM artists WHERE id = 1") == [["Theirs".databaseValue]])
    }

    @Test("moves renumber the track column; a song moves to another album; a level ordered by two columns cannot be reordered")
    func moves() throws {
        var music = try Music()
        defer { music.cleanUp() }
        #expect(try music.store.apply([.move([0, 0, 2], parent: [0, 0], index: 0)]) == [[0, 0, 0]])
        #expect(music.titles([0, 0]) == ["Song 1.1.3", "Song 1.1.1", "Song 1.1.2"])
        let album = try music.rows("SELECT id FROM albums WHERE title = 'Album 1.1'")[0][0]
        #expect(try music.rows("SELECT name FROM songs WHERE album_id = ? ORDER BY track", [album]).map { $0[0] } == ["Song 1.1.3", "Song 1.1.1", "Song 1.1.2"].map(\.databaseValue))
        #expect(try music.store.apply([.move([0, 0, 0], parent: [2, 1], index: 1)]) == [[2, 1, 1]])
        #expect(music.titles([2, 1]) == ["Song 3.2.1", "Song 1.1.3", "Song 3.2.2", "Song 3.2.3"])
        #expect(music.titles([0, 0]) == ["Song 1.1.1", "Song 1.1.2"])
        let album32 = try music.rows("SELECT id FROM albums WHERE title = 'Album 3.2'")[0][0]
        #expect(try music.rows("SELECT album_id FROM songs WHERE name = 'Song 1.1.3'") == [[album32]])
        var fixed = musicMapping
        fixed.levels[1].order = ["year", "title"]
        var byYear = try RelationalStore(path: music.path, mapping: fixed)
        let error = #expect(throws: EditError.self) { try byYear.apply([.move([0, 1], parent: [0], index: 0)]) }
        #expect(error?.message.contains("ordered by year, title") == true, "\(error?.message ?? "")")
        let level = #expect(throws: EditError.self) { _ = try music.store.apply([.move([0, 1, 0], parent: [1], index: 0)]) }
        #expect(level?.message.contains("can only move under a row of level 'albums'") == true)
        #expect(dump(music.source) == dump(try reloaded(music)))
        _ = try music.store.undo()
        _ = try music.store.undo()
        #expect(music.titles([0, 0]) == ["Song 1.1.1", "Song 1.1.2", "Song 1.1.3"])
        #expect(dump(music.source) == dump(try reloaded(music)))
    }

    @Test("setting an order column moves the row to its new place")
    func reorderByValue() throws {
        var music = try Music()
        defer { music.cleanUp() }
        #expect(music.titles([0]) == ["Album 1.1", "Album 1.2"])
        #expect(try music.store.apply([.setAttribute([0, 0], key: "year", value: Scalar(.integer, "1999"))]) == [[0, 1]])
        #expect(music.titles([0]) == ["Album 1.2", "Album 1.1"])
        #expect(dump(music.source) == dump(try reloaded(music)))
    }

    @Test("another writer's commit is noticed through PRAGMA data_version")
    func externalWriter() throws {
        var music = try Music()
        defer { music.cleanUp() }
        _ = dump(music.source)
        #expect(try music.store.refresh() == false)
        _ = try music.store.apply([.updateTitle([0], title: "Own change")])
        #expect(try music.store.refresh() == false, "its own commits are not another writer's")
        try music.check.write { try $0.execute(sql: "INSERT INTO artists(id, name) VALUES (0, 'Aardvark')") }
        #expect(try music.store.refresh() == true)
        #expect(music.titles(.root) == ["Aardvark", "Own change", "Artist 2", "Artist 3"])
        // A change made on the older snapshot whose path now leads to another row is a conflict that
        // changes nothing; the store then shows the database as it is now, and the change can be made again.
        try music.check.write { try $0.execute(sql: "DELETE FROM artists WHERE id = 0") }
        let conflict = #expect(throws: EditError.self) { try music.store.apply([.updateTitle([0], title: "First")]) }
        #expect(conflict?.reason == .conflict)
        #expect(try music.rows("SELECT name FROM artists ORDER BY id") == [["Own change".databaseValue], ["Artist 2".databaseValue], ["Artist 3".databaseValue]])
        #expect(music.titles(.root) == ["Own change", "Artist 2", "Artist 3"])
        _ = try music.store.apply([.updateTitle([0], title: "First")])
        #expect(try music.rows("SELECT name FROM artists WHERE id = 1") == [["First".databaseValue]])
        // A row another writer changed since it was shown is not overwritten (a stale counter press).
        #expect(music.titles([0]) == ["Album 1.1", "Album 1.2"])
        try music.check.write { try $0.execute(sql: "UPDATE albums SET art = 'elsewhere.png' WHERE id = 2") }
        let stale = #expect(throws: EditError.self) { try music.store.apply([.setAttribute([0, 0], key: "year", value: Scalar(.integer, "1961"))]) }
        #expect(stale?.reason == .conflict)
        #expect(try music.rows("SELECT year, art FROM albums WHERE id = 2") == [[1960.databaseValue, "elsewhere.png".databaseValue]])
    }

    @Test("random edit sequences through the store give the tree a fresh reload of the database reads", arguments: 0 ..< 6)
    func randomEdits(seed: Int) throws {
        var music = try Music(artists: 4)
        defer { music.cleanUp() }
        var rng = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 17)
        var applied = 0
        for step in 0 ..< 60 {
            var change: Change?
            switch randomMusicStep(music.store.snapshot, step: step, using: &rng) {
            case .change(let c): change = c
            case .undo: _ = try music.store.undo()
            case .redo: _ = try music.store.redo()
            case .none: break
            }
            if let change {
                do {
                    _ = try music.store.apply([change])
                    applied += 1
                } catch {
                    Issue.record("step \(step): \(change) failed: \(error)")
                }
            }
            #expect(dump(music.store.snapshot) == dump(try reloaded(music)), "seed \(seed) step \(step): \(change.map(\.description) ?? "undo/redo")")
        }
        #expect(applied > 20)
        while try music.store.undo() != nil {}
        let fresh = try Music(artists: 4)
        defer { fresh.cleanUp() }
        #expect(dump(music.store.snapshot) == dump(fresh.store.snapshot), "undoing every step gives the database back")
    }

    /// The same database read by a new source.
    func reloaded(_ music: Music) throws -> any Source {
        try RelationalSource(path: music.path, mapping: musicMapping, rootTitle: "Music")
    }
}

/// Every node of `source`, depth first, as "path title attributes".
func dump(_ source: any Source) -> [String] {
    var lines: [String] = []
    func walk(_ id: NodeID, _ path: TreePath) {
        for (i, child) in source.children(of: id).enumerated() {
            let p = TreePath(path.indices + [i])
            lines.append("\(p) \(source.title(of: child)) \(source.attributes(of: child).map { "\($0.key)=\($0.value.text)" }.joined(separator: ","))")
            walk(child, p)
        }
    }
    walk(source.root, .root)
    return lines
}

@Suite("Feedback: a relational store's steps are described")
struct RelationalHistoryTests {
    @Test("a rename and a delete of mapped rows: summaries from the rows' titles before each step")
    func summaries() throws {
        var music = try RelationalStoreTests.Music()
        defer { music.cleanUp() }
        let artist = music.titles(.root)[0], album = music.titles([0])[0]
        _ = try music.store.apply([.updateTitle([0], title: "Renamed")])
        _ = try music.store.apply([.delete([0, 0])])
        #expect(music.store.history == HistoryState(canUndo: true, canRedo: false, undo: "Delete of \(album)"))
        let undone = try music.store.undo()
        #expect(undone?.summary == "Delete of \(album)" && undone?.level(undone: true) == [0])
        #expect(music.store.history == HistoryState(canUndo: true, canRedo: true, undo: "Rename of \(artist) to Renamed", redo: "Delete of \(album)"))
    }
}
