import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownPostgres
@testable import DrillDownStore

extension PostgresRelationalTests {
    /// The audit history of mapped PostgreSQL tables (issue 32): `drilldown_history`, written in
    /// each step's transaction and read by every instance. The tests of one database share the
    /// table (each reads the records of its own tables), and each test's authors have names of
    /// their own.
    @Suite struct History {
        @Test("mappings of other tables in one database keep histories of their own in drilldown_history: neither lists nor undoes from the other's records")
        func mappingsKeepTheirOwnHistories() async throws {
            let folder = try TempFolder()
            defer { folder.cleanUp() }
            let path = folder.path("music.db")
            try makeMusicDatabase(at: path, artists: 1)
            let (one, two) = (try PGLevels(copying: path), try PGLevels(copying: path))
            defer { one.drop(); two.drop() }
            let ana = HistoryAuthor(user: "ana" + one.suffix)
            var models: [DocumentModel] = []
            for pg in [one, two] {
                let levels = try pg.levels(editable: true)
                let model = DocumentModel(store: try levels.store(rootTitle: "Music"))
                await model.keepHistory(in: PostgresHistoryLog(levels: levels))
                try await HistoryAuthor.$current.withValue(ana) { try await model.apply(.updateTitle([0], title: "Renamed")) }
                models.append(model)
            }
            let first = PostgresHistoryLog(levels: try one.levels(editable: false))
            #expect(try first.recent(by: ana, limit: 10).count == 1)
            #expect(try first.page(touching: .root, offset: 0, limit: 10).total == 1)
            #expect(try one.rows("SELECT count(*) FROM drilldown_history WHERE username = '\(ana.user!)'")[0][0] == 2.databaseValue)
            // ana's Undo on the first tables takes back her rename there: the later rename of the other tables is no later change of these.
            try await HistoryAuthor.$current.withValue(ana) { try await models[0].undo() }
            let undone = try one.levels(editable: false).source(rootTitle: "Music")
            #expect(undone.title(of: undone.node(at: [0])!) == "Artist 1")
            let other = try two.levels(editable: false).source(rootTitle: "Music")
            #expect(other.title(of: other.node(at: [0])!) == "Renamed")
        }

        @Test("a step's record is written in drilldown_history with its author; Undo of the server's own delete puts the rows back with their keys; another instance reads the records and undoes from them")
        func historyOfMappedTables() async throws {
            let folder = try TempFolder()
            defer { folder.cleanUp() }
            let path = folder.path("music.db")
            try makeMusicDatabase(at: path, artists: 2)
            let pg = try PGLevels(copying: path)
            defer { pg.drop() }
            let levels = try pg.levels(editable: true)
            let model = DocumentModel(store: try levels.store(rootTitle: "Music"))
            await model.keepHistory(in: PostgresHistoryLog(levels: levels))
            let ana = HistoryAuthor(user: "ana" + pg.suffix), bob = HistoryAuthor(user: "bob" + pg.suffix)
            let source = await model.source
            let artist = source.title(of: source.node(at: [0])!), album = source.title(of: source.node(at: [0, 0])!)
            let albumID = ColumnValue.text(try pg.rows("SELECT id::text FROM \(pg.name("albums")) WHERE title = '\(album)'")[0][0])
            let songsOfAlbum = "SELECT id::text || ' ' || name FROM \(pg.name("songs")) WHERE album_id = \(albumID) ORDER BY id"
            let songs = try pg.rows(songsOfAlbum).map { ColumnValue.text($0[0]) }
            #expect(songs.count == 3)

            try await HistoryAuthor.$current.withValue(ana) { try await model.apply(.updateTitle([0], title: "Renamed")) }
            try await HistoryAuthor.$current.withValue(bob) { try await model.apply(.delete([0, 0])) }
            let log = PostgresHistoryLog(levels: levels)
            #expect(try log.recent(by: ana, limit: 10).map(\.summary) == ["Rename of \(artist) to Renamed"])
            let deletion = try #require(try log.recent(by: bob, limit: 10).first)
            #expect(deletion.summary == "Delete of \(album)")
            #expect(try log.record(deletion.id)?.user == bob.user)
            let users = "'\(ana.user!)', '\(bob.user!)'"
            #expect(try pg.rows("SELECT username || ' ' || kind FROM drilldown_history WHERE username IN (\(users)) ORDER BY id").map { ColumnValue.text($0[0]) }
                == ["\(ana.user!) change", "\(bob.user!) change"])

            // bob's Undo, on the instance that deleted them: the album and its songs come back with their keys.
            try await HistoryAuthor.$current.withValue(bob) { try await model.undo() }
            #expect(try pg.rows(songsOfAlbum).map { ColumnValue.text($0[0]) } == songs)
            #expect(try log.recent(by: bob, limit: 1).first?.kind == .undo)

            // Another instance on the database reads the same records: ana's Undo there takes back her rename.
            let other = try pg.levels(editable: true)
            let second = DocumentModel(store: try other.store(rootTitle: "Music"))
            await second.keepHistory(in: PostgresHistoryLog(levels: other))
            #expect(try PostgresHistoryLog(levels: other).recent(by: bob, limit: 5).map(\.kind) == [.undo, .change])
            try await HistoryAuthor.$current.withValue(ana) { try await second.undo() }
            let after = try pg.levels(editable: false).source(rootTitle: "Music")
            #expect(after.title(of: after.node(at: [0])!) == artist)
            #expect(after.title(of: after.node(at: [0, 0])!) == album)
            #expect(try log.recent(by: ana, limit: 5).map(\.kind) == [.undo, .change])
        }

        @Test("a step whose history record the server refuses changes nothing, and says why")
        func refusedRecordRollsBackTheStep() async throws {
            let folder = try TempFolder()
            defer { folder.cleanUp() }
            let path = folder.path("music.db")
            try makeMusicDatabase(at: path, artists: 1)
            let pg = try PGLevels(copying: path)
            defer { pg.drop() }
            let levels = try pg.levels(editable: true)
            let model = DocumentModel(store: try levels.store(rootTitle: "Music"))
            await model.keepHistory(in: PostgresHistoryLog(levels: levels))
            let refused = "refused" + pg.suffix, trigger = pg.name("refuse")
            // The first recorded step creates the table; then a trigger refuses this test's author's records.
            try await HistoryAuthor.$current.withValue(HistoryAuthor(user: "ana" + pg.suffix)) { try await model.apply(.updateTitle([0], title: "First")) }
            try pg.execute("""
                CREATE FUNCTION \(trigger)() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN IF NEW.username = '\(refused)' THEN RAISE EXCEPTION 'no record for \(refused)'; END IF; RETURN NEW; END $$
                """)
            try pg.execute("CREATE TRIGGER \(trigger) BEFORE INSERT ON drilldown_history FOR EACH ROW EXECUTE FUNCTION \(trigger)()")
            defer {
                try? pg.execute("DROP TRIGGER IF EXISTS \(trigger) ON drilldown_history")
                try? pg.execute("DROP FUNCTION IF EXISTS \(trigger)()")
            }
            let error = await #expect(throws: EditError.self) {
                try await HistoryAuthor.$current.withValue(HistoryAuthor(user: refused)) { try await model.apply(.updateTitle([0], title: "Second")) }
            }
            #expect(error?.message.contains("could not record the change in the history") == true, "\(String(describing: error))")
            #expect(error?.message.contains("no record for \(refused)") == true, "\(String(describing: error))")
            let fresh = try pg.levels(editable: false).source(rootTitle: "Music")
            #expect(fresh.title(of: fresh.node(at: [0])!) == "First")
            #expect(try pg.rows("SELECT count(*) FROM drilldown_history WHERE username = '\(refused)'")[0][0] == 0.databaseValue)
            // The next step of another author goes through.
            try await HistoryAuthor.$current.withValue(HistoryAuthor(user: "ana" + pg.suffix)) { try await model.apply(.updateTitle([0], title: "Third")) }
            let now = try pg.levels(editable: false).source(rootTitle: "Music")
            #expect(now.title(of: now.node(at: [0])!) == "Third")
        }
    }
}
