import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownPostgres
@testable import DrillDownStore

/// The relational mapping on PostgreSQL (issue 11 item 1), against the server of
/// `DRILLDOWN_TEST_PG_URL` (Scripts/test.sh starts a throwaway cluster). Each test makes tables of
/// its own (names with a random suffix), copied from the SQLite music fixture, so the same
/// random edits can run on both databases and be compared.
@Suite(.enabled(if: PGLevels.url != nil, "DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server to test against"))
struct PostgresRelationalTests {
    @Test("random edits give the same tree on PostgreSQL as on SQLite, and as a fresh read of the tables", arguments: 0 ..< 4)
    func randomEditsAgreeWithSQLite(seed: Int) throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("music.db")
        try makeMusicDatabase(at: path, artists: 4)
        let pg = try PGLevels(copying: path)
        defer { pg.drop() }
        var sqlite = try RelationalStore(path: path, mapping: pg.mapping(suffixed: false), rootTitle: "Music")
        var postgres = try pg.levels(editable: true).store(rootTitle: "Music")
        #expect(dump(postgres.snapshot) == dump(sqlite.snapshot))
        var rng = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 17)
        var applied = 0
        for step in 0 ..< 50 {
            var change: Change?
            switch randomMusicStep(sqlite.snapshot, step: step, using: &rng) {
            case .change(let c): change = c
            case .undo: #expect((try sqlite.undo() != nil) == (try postgres.undo() != nil))
            case .redo: #expect((try sqlite.redo() != nil) == (try postgres.redo() != nil))
            case .none: break
            }
            if let change {
                let a = Result { try sqlite.apply([change]) }
                let b = Result { try postgres.apply([change]) }
                #expect((try? a.get()) == (try? b.get()), "seed \(seed) step \(step): \(change)")
                if case .success = b { applied += 1 }
            }
            let shown = dump(postgres.snapshot)
            #expect(shown == dump(sqlite.snapshot), "seed \(seed) step \(step): \(change.map(\.description) ?? "undo/redo")")
            #expect(shown == dump(try pg.levels(editable: false).source(rootTitle: "Music")), "seed \(seed) step \(step): a fresh read")
        }
        #expect(applied > 15)
        while try postgres.undo() != nil {}
        let original = try PGLevels(copying: { try makeMusicDatabase(at: folder.path("fresh.db"), artists: 4); return folder.path("fresh.db") }())
        defer { original.drop() }
        #expect(dump(postgres.snapshot) == dump(try original.levels(editable: false).source(rootTitle: "Music")), "undoing every step gives the tables back")
    }

    @Test("levels ordered by a column with NULLs page by keyset in PostgreSQL's order (NULLs last ascending, first descending), from either end")
    func keysetWithNulls() throws {
        let pg = try PGLevels()
        defer { pg.drop() }
        let t = pg.name("ranked")
        try pg.execute("CREATE TABLE \(t) (id bigserial PRIMARY KEY, name text NOT NULL, rank integer)")
        try pg.execute("INSERT INTO \(t) (name, rank) SELECT 'Row ' || i, CASE WHEN i % 3 = 0 THEN NULL ELSE (i * 37) % 50 END FROM generate_series(1, 250) i")
        for order in ["rank", "rank DESC"] {
            let mapping = RelationalMapping(levels: [.init(table: t, title: "name", order: [order])])
            let expected = try pg.rows("SELECT name FROM \(t) ORDER BY \(order), id").map { ColumnValue.text($0[0]) }
            // In order, a page at a time.
            var source = try PostgresLevels(pg.location, mapping: mapping, editable: false).source()
            #expect(source.children(of: source.root).map { source.title(of: $0) } == expected, "\(order), read in order")
            // From the end first, then the middle (a page read backwards from the end, then by offset).
            source = try PostgresLevels(pg.location, mapping: mapping, editable: false).source()
            let ids = source.children(of: source.root)
            let backwards = [249, 180, 120, 10, 101, 99].map { source.title(of: ids[$0]) }
            #expect(backwards == [249, 180, 120, 10, 101, 99].map { expected[$0] }, "\(order), read from the end")
        }
    }

    @Test("PostgreSQL types: numerics as numbers, booleans as switches, dates and enums as text; edits are typed by the server")
    func columnTypes() throws {
        let pg = try PGLevels()
        defer { pg.drop() }
        let t = pg.name("typed"), mood = pg.name("mood")
        try pg.execute("CREATE TYPE \(mood) AS ENUM ('calm', 'happy')")
        try pg.execute("""
            CREATE TABLE \(t) (id serial PRIMARY KEY, name varchar(40) NOT NULL, price numeric(8, 2), liked boolean NOT NULL DEFAULT false,
                released date, feeling \(mood), cover bytea, score real)
            """)
        try pg.execute("INSERT INTO \(t) (name, price, liked, released, feeling, cover, score) VALUES ('So What', 12.50, true, '1959-08-17', 'calm', '\\x0102ff', 4.5)")
        let mapping = RelationalMapping(levels: [.init(table: t, title: "name")])
        var store = try PostgresLevels(pg.location, mapping: mapping, editable: true).store()
        var source = store.snapshot
        let row = source.children(of: source.root)[0]
        #expect(source.title(of: row) == "So What")
        let attributes = Dictionary(uniqueKeysWithValues: source.attributes(of: row).map { ($0.key, $0.value) })
        #expect(attributes["price"] == Scalar(.real, "12.50"))
        #expect(attributes["liked"] == Scalar(.bool, "true"))
        #expect(attributes["released"] == Scalar(.string, "1959-08-17"))
        #expect(attributes["feeling"] == Scalar(.string, "calm"))
        #expect(attributes["cover"] == Scalar(.data, Data([1, 2, 255]).base64EncodedString()))
        #expect(attributes["score"] == Scalar(.real, "4.5"))
        _ = try store.apply([
            .setAttribute([0], key: "released", value: Scalar(.string, "1960-01-02")), .setAttribute([0], key: "liked", value: Scalar(.bool, "false")),
            .setAttribute([0], key: "feeling", value: Scalar(.string, "happy")), .setAttribute([0], key: "price", value: Scalar(.string, "9.99")),
        ])
        #expect(try pg.rows("SELECT released::text, liked::text, feeling::text, price::text FROM \(t)").map { $0.map(ColumnValue.text) }
            == [["1960-01-02", "false", "happy", "9.99"]])
        // The server refuses what its type does not take; the step changes nothing.
        #expect(throws: EditError.self) { try store.apply([.updateTitle([0], title: "Kind of Blue"), .setAttribute([0], key: "released", value: Scalar(.string, "someday"))]) }
        #expect(throws: EditError.self) { try store.apply([.setAttribute([0], key: "liked", value: Scalar(.string, "maybe"))]) }
        #expect(throws: EditError.self) { try store.apply([.setAttribute([0], key: "price", value: Scalar(.string, "cheap"))]) }
        #expect(try pg.rows("SELECT name, released::text FROM \(t)").map { $0.map(ColumnValue.text) } == [["So What", "1960-01-02"]])
        // A new row: serial key and defaults from the server.
        _ = try store.apply([.insert(NewNode(title: "Blue in Green"), parent: .root, index: nil)])
        source = store.snapshot
        #expect(source.children(of: source.root).map { source.title(of: $0) } == ["So What", "Blue in Green"])
        #expect(try pg.rows("SELECT id, liked FROM \(t) ORDER BY id") == [[1.databaseValue, 0.databaseValue], [2.databaseValue, 0.databaseValue]])
        _ = try store.undo()
        #expect(try pg.rows("SELECT count(*) FROM \(t)") == [[1.databaseValue]])
    }

    @Test("another instance's change, and another program's, reach a store through the triggers; undo never overwrites them")
    func otherWriters() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        try makeMusicDatabase(at: folder.path("music.db"), artists: 2)
        let pg = try PGLevels(copying: folder.path("music.db"))
        defer { pg.drop() }
        var a = try pg.levels(editable: true, listen: true).store()
        var b = try pg.levels(editable: true, listen: true).store()
        #expect(try a.refresh() == false)
        _ = try b.apply([.updateTitle([0], title: "Renamed by B")])
        #expect(try eventually { try a.refresh() })
        let source = a.snapshot
        #expect(source.title(of: source.children(of: source.root)[0]) == "Renamed by B")
        // psql (any program): the statement trigger raises the revision.
        try pg.execute("UPDATE \(pg.name("artists")) SET name = 'Renamed by psql' WHERE id = 2")
        #expect(try eventually { try a.refresh() })
        #expect(a.snapshot.title(of: a.snapshot.children(of: a.snapshot.root)[1]) == "Renamed by psql")
        // B's undo finds A's change to the same row and refuses, changing nothing.
        _ = try a.apply([.updateTitle([0], title: "Renamed by A")])
        #expect(throws: EditError.self) { try b.undo() }
        #expect(try pg.rows("SELECT name FROM \(pg.name("artists")) WHERE id = 1").map { $0.map(ColumnValue.text) } == [["Renamed by A"]])
        // A step made on a snapshot whose path now leads to another row is a conflict, even before a
        // refresh; the store then shows the tables as they are now.
        try pg.execute("DELETE FROM \(pg.name("songs")) WHERE album_id IN (SELECT id FROM \(pg.name("albums")) WHERE artist_id = 1)")
        try pg.execute("DELETE FROM \(pg.name("albums")) WHERE artist_id = 1")
        try pg.execute("DELETE FROM \(pg.name("artists")) WHERE id = 1")
        let conflict = #expect(throws: EditError.self) { try b.apply([.updateTitle([0], title: "First now")]) }
        #expect(conflict?.reason == .conflict)
        _ = try b.apply([.updateTitle([0], title: "First now")])
        #expect(try pg.rows("SELECT name FROM \(pg.name("artists"))").map { $0.map(ColumnValue.text) } == [["First now"]])
    }

    @Test("increments derived inside the step count every press of two stores that never refresh, on SQLite and PostgreSQL")
    func derivedIncrements() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("music.db")
        try makeMusicDatabase(at: path)
        let pg = try PGLevels(copying: path)
        defer { pg.drop() }
        let song = TreePath([0, 0, 0])
        func pairs() throws -> [(RelationalStore, RelationalStore, () throws -> String)] {
            let sqlite = try DatabaseQueue(path: path)
            return [
                (try RelationalStore(path: path, mapping: musicMapping), try RelationalStore(path: path, mapping: musicMapping),
                 { try sqlite.read { db in try String(Int.fetchOne(db, sql: "SELECT length FROM songs WHERE name = 'Song 1.1.1'") ?? -1) } }),
                (try pg.levels(editable: true).store(), try pg.levels(editable: true).store(),
                 { ColumnValue.text(try pg.rows("SELECT length FROM \(pg.name("songs")) WHERE name = 'Song 1.1.1'")[0][0]) }),
            ]
        }
        for (var a, var b, length) in try pairs() {
            #expect(a.snapshot.title(of: a.snapshot.node(at: song)!) == "Song 1.1.1")
            let before = Int(try length())!
            for _ in 0 ..< 20 {
                _ = try a.apply(deriving: Self.press(song))
                _ = try b.apply(deriving: Self.press(song))
            }
            #expect(try length() == String(before + 40), "every press counted")
            // The same press made on a stale snapshot instead is refused, never counted twice or lost.
            let stale = try Self.press(song)(b.snapshot)
            _ = try a.apply(deriving: Self.press(song))
            let conflict = #expect(throws: EditError.self) { try b.apply(stale) }
            #expect(conflict?.reason == .conflict)
            #expect(try length() == String(before + 41))
        }
    }

    /// An increment of `length` at `path`, computed from `source`.
    static func press(_ path: TreePath) -> (any Source) throws(EditError) -> [Change] {
        { source throws(EditError) in
            guard let id = source.node(at: path) else { throw EditError("no node", at: path) }
            let n = Int(source.attribute("length", of: id)?.text ?? "0") ?? 0
            return [.setAttribute(path, key: "length", value: Scalar(.integer, String(n + 1)))]
        }
    }

    @Test("search on PostgreSQL in SQL finds what SQLite's walk finds: the same hits in document order, the same totals")
    func searchMatchesTheWalk() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("music.db")
        try makeMusicDatabase(at: path, artists: 5, albums: 3, songs: 4)
        let queue = try DatabaseQueue(path: path)
        try queue.write { db in
            try db.execute(sql: "UPDATE songs SET name = '100% Song_1 \\ back' WHERE id = 7")
            try db.execute(sql: "UPDATE albums SET title = 'SONG of the album' WHERE id = 4")
        }
        let pg = try PGLevels(copying: path)
        defer { pg.drop() }
        let sqlite = try RelationalSource(path: path, mapping: pg.mapping(suffixed: false), rootTitle: "Music")
        let postgres = try pg.levels(editable: false).source(rootTitle: "Music")
        #expect(try sqlite.indexedFind(SearchQuery("song"), until: { false }) == nil, "SQLite walks")
        for text in ["song", "SONG", "Song 2.", "album 3.2", "1.1", "100%", "g_1", "_", "%", "\\", "nothing like it", "Artist 5"] {
            for limit in [3, 100] {
                let query = SearchQuery(text, limit: limit)
                let walked = sqlite.find(query), found = postgres.find(query)
                #expect(try #require(try postgres.indexedFind(query, until: { false })) == found, "\(text): PostgreSQL searched in SQL")
                #expect(found.total == walked.total, "\(text) (limit \(limit)): totals")
                #expect(found.hits.map { postgres.path(of: $0) } == walked.hits.map { sqlite.path(of: $0) }, "\(text) (limit \(limit)): hits in document order")
                #expect(found.hits.map { postgres.title(of: $0) } == walked.hits.map { sqlite.title(of: $0) })
            }
        }
    }

    @Test("stats' shape counted in SQL is the walk's: rows, the widest parent and the depth, rows outside the tree left out")
    func shapeMatchesTheWalk() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("music.db")
        try makeMusicDatabase(at: path, artists: 6, albums: 3, songs: 5)
        let pg = try PGLevels(copying: path)
        defer { pg.drop() }
        // An album whose artist is not there (SQLite without foreign keys): not in the tree.
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false
        try DatabaseQueue(path: path, configuration: configuration).write { db in
            try db.execute(sql: "INSERT INTO albums(id, artist_id, title, year) VALUES (999, 12345, 'Orphan', 1960)")
            try db.execute(sql: "INSERT INTO songs(album_id, name, track) VALUES (999, 'Orphan song', 1)")
        }
        func walked(_ source: any Source) -> (Int, Int, Int) {
            var rows = 0, widest = 0, depth = 0
            var stack = [(source.root, 0)]
            while let (id, d) = stack.popLast() {
                let children = source.children(of: id)
                guard !children.isEmpty else { continue }
                rows += children.count
                widest = max(widest, children.count)
                depth = max(depth, d + 1)
                stack += children.map { ($0, d + 1) }
            }
            return (rows, widest, depth)
        }
        let sqlite = try RelationalSource(path: path, mapping: pg.mapping(suffixed: false))
        let postgres = try pg.levels(editable: false).source()
        for source in [sqlite, postgres] {
            let shape = try source.shape()
            let walk = walked(source)
            #expect(shape.rows == walk.0 && shape.widest == walk.1 && shape.depth == walk.2, "\(shape) against the walk's \(walk)")
        }
        #expect(try sqlite.shape().rows == 6 + 18 + 90)
    }

    @Test("a role that may only read and write rows edits once the tables' owner has installed the triggers; before, a clear error")
    func editingWithoutOwnership() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        try makeMusicDatabase(at: folder.path("music.db"), artists: 2)
        let pg = try PGLevels(copying: folder.path("music.db"))
        let role = pg.name("guest")
        defer {
            pg.drop()
            try? PGLevels().execute("DROP ROLE IF EXISTS \(role)")
        }
        try pg.execute("CREATE ROLE \(role) LOGIN")
        try pg.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON \(pg.name("artists")), \(pg.name("albums")), \(pg.name("songs")) TO \(role)")
        var guest = pg.location
        guest.user = role
        let refused = #expect(throws: PostgresStoreError.self) { try PostgresLevels(guest, mapping: pg.mapping(), editable: true) }
        #expect(refused?.message.contains("cannot install the revision triggers") == true)
        #expect(refused?.message.contains("as the tables' owner") == true)
        _ = try pg.levels(editable: true)   // the owner, once
        try pg.execute("GRANT SELECT, UPDATE ON drilldown_revisions TO \(role)")
        var store = try PostgresLevels(guest, mapping: pg.mapping(), editable: true).store()
        _ = try store.apply([.updateTitle([0], title: "Renamed by a guest")])
        #expect(try pg.rows("SELECT name FROM \(pg.name("artists")) WHERE id = 1").map { $0.map(ColumnValue.text) } == [["Renamed by a guest"]])
        // Another program writing as a role with no rights on drilldown_revisions is not stopped by
        // the trigger (it runs with its owner's rights), and its change still raises the revision.
        try pg.execute("REVOKE ALL ON drilldown_revisions FROM \(role)")
        let before = try pg.rows("SELECT revision FROM drilldown_revisions WHERE table_name = '\(pg.name("artists"))'")
        let session = try PostgresSession(guest)
        defer { session.close() }
        try session.run { try PostgresRelationalConnection($0, of: session).execute("UPDATE \(pg.name("artists")) SET name = 'By another program' WHERE id = 2", []) }
        let after = try pg.rows("SELECT revision FROM drilldown_revisions WHERE table_name = '\(pg.name("artists"))'")
        #expect(Int64.fromDatabaseValue(after[0][0])! == Int64.fromDatabaseValue(before[0][0])! + 1)
    }

    @Test("a mapping that does not fit the database names what is missing")
    func mappingErrors() throws {
        let pg = try PGLevels()
        defer { pg.drop() }
        let t = pg.name("plain")
        try pg.execute("CREATE TABLE \(t) (code text PRIMARY KEY, label text)")
        func message(_ mapping: RelationalMapping) -> String {
            do { _ = try PostgresLevels(pg.location, mapping: mapping, editable: false).source() } catch { return "\(error)" }
            return "no error"
        }
        #expect(message(.init(levels: [.init(table: "nope_\(t)", title: "label")])).contains("table 'nope_\(t)' does not exist"))
        #expect(message(.init(levels: [.init(table: t, title: "titel", key: "code")])).contains("column 'titel' (title) does not exist; columns: code, label"))
        #expect(message(.init(levels: [.init(table: t, title: "label")])).contains("has no 'id' column; name its key column with 'key:'"))
    }
}

/// Whether `body` says yes within 30 s (a NOTIFY takes a few milliseconds to arrive; the deadline
/// only bounds a failure, and is generous for a busy machine where the LISTEN itself may come late).
func eventually(_ body: () throws -> Bool) throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if try body() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return false
}

/// A PostgreSQL database for one test: tables named with a suffix of their own, dropped at the end.
struct PGLevels {
    static let url = ProcessInfo.processInfo.environment["DRILLDOWN_TEST_PG_URL"].flatMap { $0.isEmpty ? nil : $0 }
    let location: PostgresLocation
    let session: PostgresSession
    let suffix = "_\(UInt32.random(in: 0 ... .max))"

    init() throws {
        location = try PostgresLocation(url: Self.url!)
        session = try PostgresSession(location)
    }

    /// The music tables of the SQLite database at `path`, copied.
    init(copying path: String) throws {
        try self.init()
        let (artists, albums, songs) = (name("artists"), name("albums"), name("songs"))
        try execute("CREATE TABLE \(artists) (id bigserial PRIMARY KEY, name text NOT NULL, country text)")
        try execute("CREATE TABLE \(albums) (id bigserial PRIMARY KEY, artist_id bigint NOT NULL REFERENCES \(artists)(id), title text NOT NULL, year integer, art text)")
        try execute("CREATE INDEX ON \(albums) (artist_id)")
        try execute("""
            CREATE TABLE \(songs) (id bigserial PRIMARY KEY, album_id bigint NOT NULL REFERENCES \(albums)(id), name text NOT NULL,
                track integer, length integer, rating double precision, cover bytea)
            """)
        try execute("CREATE INDEX ON \(songs) (album_id, track)")
        let queue = try DatabaseQueue(path: path)
        for (table, columns) in [(artists, "id, name, country"), (albums, "id, artist_id, title, year, art"), (songs, "id, album_id, name, track, length, rating, cover")] {
            let source = String(table.dropLast(suffix.count))
            let rows = try queue.read { db in try GRDB.Row.fetchAll(db, sql: "SELECT \(columns) FROM \(source)").map { Array($0.databaseValues) } }
            let marks = columns.split(separator: ",").map { _ in "?" }.joined(separator: ", ")
            for row in rows { try execute("INSERT INTO \(table) (\(columns)) VALUES (\(marks))", row) }
            try execute("SELECT setval(pg_get_serial_sequence('\(table)', 'id'), (SELECT COALESCE(MAX(id), 1) FROM \(table)))")
        }
    }

    func name(_ base: String) -> String { base + suffix }

    /// The music mapping on this test's tables (new albums get a year, so no NULL decides an order).
    func mapping(suffixed: Bool = true) -> RelationalMapping {
        let name = suffixed ? name : { $0 }
        return RelationalMapping(levels: [
            .init(name: "artists", table: name("artists"), title: "name", key: "id", kind: "artist"),
            .init(name: "albums", table: name("albums"), title: "title", key: "id", parent: "artist_id", order: ["year"], kind: "album", defaults: ["year": "1900"]),
            .init(name: "songs", table: name("songs"), title: "name", parent: "album_id", order: ["track"], kind: "song"),
        ])
    }

    func levels(editable: Bool, listen: Bool = false) throws -> PostgresLevels {
        try PostgresLevels(location, mapping: mapping(), editable: editable, listen: listen)
    }

    func execute(_ sql: String, _ arguments: [DatabaseValue] = []) throws {
        try session.run { connection in try PostgresRelationalConnection(connection, of: session).execute(sql, arguments) }
    }

    func rows(_ sql: String) throws -> [[DatabaseValue]] {
        try session.run { connection in try PostgresRelationalConnection(connection, of: session).rows(sql, []) }
    }

    /// Drops every table and type of this test.
    func drop() {
        _ = try? rows("SELECT 1")
        if let names = try? rows("SELECT relname::text FROM pg_class WHERE relkind = 'r' AND relname LIKE '%\(suffix)'") {
            for row in names { try? execute("DROP TABLE IF EXISTS \(ColumnValue.text(row[0])) CASCADE") }
        }
        if let types = try? rows("SELECT typname::text FROM pg_type WHERE typtype = 'e' AND typname LIKE '%\(suffix)'") {
            for row in types { try? execute("DROP TYPE IF EXISTS \(ColumnValue.text(row[0])) CASCADE") }
        }
        try? execute("DELETE FROM drilldown_revisions WHERE table_name LIKE '%\(suffix)'")
        session.close()
    }
}
