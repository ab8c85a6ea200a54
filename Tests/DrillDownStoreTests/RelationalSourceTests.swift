import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

@Suite("Relational mapping")
struct RelationalSourceTests {
    /// A music database in a temp folder and a source over it; the folder is removed by `cleanUp`.
    struct Music {
        let folder: TempFolder
        let source: RelationalSource
        var path: String { folder.path("music.db") }
        init(artists: Int = 3, wideAlbums: Int = 0, mapping: RelationalMapping = musicMapping) throws {
            folder = try TempFolder()
            try makeMusicDatabase(at: folder.path("music.db"), artists: artists, wideAlbums: wideAlbums)
            source = try RelationalSource(path: folder.path("music.db"), mapping: mapping, rootTitle: "Music")
        }
        func titles(_ id: NodeID) -> [String] { source.children(of: id).map { source.title(of: $0) } }
        func cleanUp() { folder.cleanUp() }
    }

    @Test("the root lists the first level; each row drills into the next level, ordered by the order column")
    func levelsAndTitles() throws {
        let music = try Music()
        defer { music.cleanUp() }
        let s = music.source
        #expect(s.rootTitle == "Music")
        #expect(music.titles(s.root) == ["Artist 1", "Artist 2", "Artist 3"])
        let artist2 = s.node(at: [1])!
        #expect(music.titles(artist2) == ["Album 2.1", "Album 2.2"], "albums by year, not by insertion")
        let album = s.node(at: [1, 1])!
        #expect(music.titles(album) == ["Song 2.2.1", "Song 2.2.2", "Song 2.2.3"], "songs by track")
        let song = s.node(at: [1, 1, 2])!
        #expect(s.children(of: song).isEmpty, "the last level has no children")
        #expect(s.titlePath(of: song) == "Artist 2/Album 2.2/Song 2.2.3")
        #expect(s.path(of: song) == [1, 1, 2])
    }

    @Test("each level's rows are filtered by the parent's key, all the way down the path")
    func chaining() throws {
        let music = try Music()
        defer { music.cleanUp() }
        let s = music.source
        for (a, artist) in s.children(of: s.root).enumerated() {
            for (b, album) in s.children(of: artist).enumerated() {
                #expect(s.parent(of: album) == artist)
                #expect(music.titles(album).allSatisfy { $0.hasPrefix("Song \(a + 1).\(b + 1).") })
                for song in s.children(of: album) { #expect(s.parent(of: song) == album) }
            }
        }
    }

    @Test("columns other than title, key and parent are typed attributes; kind names the level")
    func attributes() throws {
        let music = try Music()
        defer { music.cleanUp() }
        let s = music.source
        let artist1 = s.node(at: [0])!, artist2 = s.node(at: [1])!
        #expect(s.attributes(of: artist1) == [Attribute(key: "country", value: Scalar(.string, "US"))])
        #expect(s.attribute("country", of: artist2) == Scalar(.null, ""))
        let album = s.node(at: [0, 0])!
        #expect(s.attributes(of: album).map(\.key) == ["year", "art"])
        #expect(s.attribute("YEAR", of: album) == Scalar(.integer, "1960"))
        let song = s.node(at: [0, 0, 0])!
        #expect(s.attributes(of: song).map(\.key) == ["track", "length", "rating", "cover"])
        #expect(s.attribute("rating", of: song) == Scalar(.real, "4.5"))
        #expect(s.attribute("cover", of: song) == Scalar(.data, "AQID"))
        #expect(s.attribute("kind", of: song) == Scalar(.string, "song"))
        #expect(s.value(of: song) == nil)
    }

    @Test("the presenter picks each level's template through its kind")
    func presenterTemplates() throws {
        let music = try Music()
        defer { music.cleanUp() }
        var schema = Schema()
        var song = Template(kind: "song")
        song.subtitle = try TextTemplate("{length|duration}")
        var album = Template(kind: "album")
        album.title = try TextTemplate("{title} ({year})")
        schema.kinds = [album, song]
        let presenter = Presenter(source: music.source, schema: schema)
        let albumRow = presenter.rows(of: music.source.node(at: [0])!)[0]
        #expect(albumRow.title == "Album 1.1 (1960)")
        #expect(albumRow.kind == "album")
        #expect(albumRow.drills)
        let songs = presenter.rows(of: music.source.node(at: [0, 0])!)
        #expect(songs.map(\.subtitle) == ["3:00", "3:01", "3:02"])
        #expect(songs.allSatisfy { !$0.drills })
    }

    @Test("children form contiguous id ranges and capacity grows as levels are visited")
    func idBlocks() throws {
        let music = try Music()
        defer { music.cleanUp() }
        let s = music.source
        #expect(s.capacity == 1)
        let artists = s.children(of: s.root)
        #expect(artists == NodeRange(1, 4))
        #expect(s.capacity == 4)
        let albums = s.children(of: artists[2])
        #expect(albums == NodeRange(4, 6))
        #expect(s.children(of: artists[2]) == albums, "a level is counted once")
        #expect(s.capacity == 6)
        for id in albums { #expect(s.position(of: id) == id.index - 4) }
    }

    @Test("an outline over the database expands and collapses as levels grow the id space")
    func outline() throws {
        let music = try Music()
        defer { music.cleanUp() }
        let s = music.source
        var outline = Outline(source: s)
        #expect(outline.visibleCount == 3)
        outline.expand(s.node(at: [0])!)
        #expect(outline.visibleCount == 5)
        outline.expand(s.node(at: [0, 1])!)
        outline.expand(s.node(at: [2])!)
        outline.expand(s.node(at: [2, 0])!)
        #expect(outline.visibleCount == 3 + 2 + 3 + 2 + 3)
        #expect(outline.node(atRow: 3).map { s.title(of: $0) } == "Song 1.2.1")
        #expect(outline.row(of: s.node(at: [2, 0, 2])!) == 11)
        outline.collapse(s.node(at: [0])!)
        #expect(outline.visibleCount == 3 + 2 + 3)
        outline.expandAll()
        #expect(outline.visibleCount == 3 + 3 * 2 + 3 * 2 * 3)
        #expect(outline.node(atRow: 26).map { s.titlePath(of: $0) } == "Artist 3/Album 3.2/Song 3.2.3")
    }

    @Test("a level of 10 000 rows pages by keyset (no OFFSET when paging on) and counts a page's children in one grouped query")
    func lazyPaging() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("music.db")
        try makeMusicDatabase(at: path, artists: 1, wideAlbums: 10_000)
        let log = StatementLog()
        var configuration = Configuration()
        configuration.readonly = true
        configuration.prepareDatabase { db in db.trace { log.append($0.expandedDescription) } }
        let source = try RelationalSource(
            database: try DatabaseQueue(path: path, configuration: configuration), mapping: musicMapping, file: path)
        let wide = source.node(at: [1])!
        #expect(source.title(of: wide) == "Wide")
        log.clear()
        let albums = source.children(of: wide)
        #expect(albums.count == 10_000)
        #expect(log.statements.filter { $0.contains("albums") }.isEmpty, "the artists' page already counted their albums: \(log.statements)")
        let first = (0 ..< 20).map { source.title(of: albums[$0]) }
        #expect(first == (0 ..< 20).map { String(format: "Wide %05d", $0) })
        var statements = log.statements.filter { $0.contains("albums") }
        #expect(statements.count == 1, "\(statements)")
        #expect(statements[0].contains("LIMIT 100") && !statements[0].contains("OFFSET"))
        // The next pages start after the last row of the one before: keyset, never OFFSET.
        log.clear()
        for i in stride(from: 100, to: 1000, by: 100) { #expect(source.title(of: albums[i]) == String(format: "Wide %05d", i)) }
        statements = log.statements.filter { $0.contains("FROM \"albums\"") }
        #expect(statements.count == 9 && statements.allSatisfy { !$0.contains("OFFSET") && $0.contains("\"year\" >=") }, "\(statements)")
        // Jumping to row 7 500 reads that row's page only, from the nearer end.
        log.clear()
        #expect(source.title(of: albums[7_500]) == "Wide 07500")
        #expect(source.title(of: albums[7_599]) == "Wide 07599")
        #expect(source.title(of: albums[9_999]) == "Wide 09999")
        statements = log.statements.filter { $0.contains("FROM \"albums\"") }
        #expect(statements.count == 2, "\(statements)")
        // Each page of albums counts its albums' songs with one grouped query.
        log.clear()
        _ = Presenter(source: source).rows(of: wide, offset: 2000, limit: 20)
        let songs = log.statements.filter { $0.contains("songs") }
        #expect(songs.count == 1 && songs[0].contains("GROUP BY"), "\(songs)")
    }

    @Test("reads from many tasks at once agree (the source is Sendable)")
    func concurrentReads() async throws {
        let music = try Music(artists: 20)
        defer { music.cleanUp() }
        let s = music.source
        let paths = await withTaskGroup(of: [String].self) { group in
            for t in 0 ..< 8 {
                group.addTask {
                    (0 ..< 20).map { a in
                        let artist = s.node(at: [(a + t) % 20])!
                        return s.children(of: artist).flatMap { s.children(of: $0) }.map { s.titlePath(of: $0) }.joined(separator: ",")
                    }
                }
            }
            var all: [[String]] = []
            for await result in group { all.append(result.sorted()) }
            return all
        }
        #expect(Set(paths).count == 1)
        #expect(paths[0].count == 20)
    }

    @Test("a first level with a parent column lists the rows whose parent is NULL (a self-referencing table)")
    func selfReferencingTable() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("tree.db")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TABLE categories(id INTEGER PRIMARY KEY, parent_id INTEGER, label TEXT);
                INSERT INTO categories VALUES (1, NULL, 'Fruit'), (2, NULL, 'Vegetables'), (3, 1, 'Apple'), (4, 1, 'Pear'), (5, 2, 'Leek');
                """)
        }
        let mapping = RelationalMapping(levels: [
            .init(name: "top", table: "categories", title: "label", parent: "parent_id", order: ["label"]),
            .init(name: "sub", table: "categories", title: "label", parent: "parent_id", order: ["label DESC"]),
        ])
        let s = try RelationalSource(path: path, mapping: mapping)
        #expect(s.children(of: s.root).map { s.title(of: $0) } == ["Fruit", "Vegetables"])
        #expect(s.children(of: s.node(at: [0])!).map { s.title(of: $0) } == ["Pear", "Apple"])
    }

    @Test("a file that is not a database is a StoreError naming it")
    func notADatabase() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("junk.db")
        FileManager.default.createFile(atPath: path, contents: Data(SQLiteFile.header + Array(repeating: 0xAB, count: 2000)))
        #expect(throws: StoreError.self) { try RelationalSource(path: path, mapping: musicMapping) }
        #expect(throws: StoreError.self) { try RelationalSource(path: folder.path("missing.db"), mapping: musicMapping) }
    }
}

/// Collects the SQL statements a connection runs (GRDB's trace).
final class StatementLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func append(_ s: String) { lock.withLock { list.append(s) } }
    func clear() { lock.withLock { list.removeAll() } }
    var statements: [String] { lock.withLock { list } }
}
