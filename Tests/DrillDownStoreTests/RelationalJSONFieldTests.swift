import DrillDownCore
import DrillDownFormats
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

/// A text column holding JSON opens as a subtree of its row (issue 33, item 3): read through the
/// core's `EmbeddedFieldSource`, written back by the relational store.
@Suite("Relational JSON fields")
struct RelationalJSONFieldTests {
    static let liner = #"{"label": "Columbia", "tags": ["modal", "jazz"]}"#

    /// The music tables with a `liner` column on albums: JSON on the first artist's first album,
    /// text that only looks like JSON on its second.
    static func music() throws -> RelationalStoreTests.Music {
        var music = try RelationalStoreTests.Music(setUp: """
            ALTER TABLE albums ADD COLUMN liner TEXT;
            UPDATE albums SET liner = '\(liner)' WHERE title = 'Album 1.1';
            UPDATE albums SET liner = '[not json' WHERE title = 'Album 1.2';
            """)
        music.store.openJSON(.formats)
        return music
    }

    func linerText(_ music: RelationalStoreTests.Music) throws -> String? {
        String.fromDatabaseValue(try music.rows("SELECT liner FROM albums WHERE title = 'Album 1.1'")[0][0])
    }

    @Test("a JSON column is a child of its row, after the next level's rows, and paths go on into it")
    func reads() throws {
        let music = try Self.music()
        defer { music.cleanUp() }
        #expect(music.titles([0]) == ["Album 1.1", "Album 1.2"])
        #expect(music.titles([0, 0]) == ["Song 1.1.1", "Song 1.1.2", "Song 1.1.3", "liner"])
        #expect(music.titles([0, 0, 3]) == ["label", "tags"])
        #expect(music.titles([0, 0, 3, 1]) == ["0", "1"])
        let s = music.source
        let jazz = s.node(at: [0, 0, 3, 1, 1])!
        #expect(s.value(of: jazz) == Scalar(.string, "jazz"))
        #expect(s.path(of: jazz) == [0, 0, 3, 1, 1])
        #expect(s.titlePath(of: jazz) == "Artist 1/Album 1.1/liner/tags/1")
        #expect(s.value(of: s.node(at: [0, 0, 3])!) == Scalar(.string, Self.liner))
        // Bad JSON stays a plain field: no node, no error.
        #expect(music.titles([0, 1]) == ["Song 1.2.1", "Song 1.2.2", "Song 1.2.3"])
        #expect(s.attribute("liner", of: s.node(at: [0, 1])!) == Scalar(.string, "[not json"))
    }

    @Test("a change inside the JSON rewrites the column compactly, keys in order, and undoes as one step")
    func edits() throws {
        var music = try Self.music()
        defer { music.cleanUp() }
        #expect(try music.store.apply([.setValue([0, 0, 3, 0], value: Scalar(.string, "Sony"))]) == [[0, 0, 3, 0]])
        #expect(try linerText(music) == #"{"label":"Sony","tags":["modal","jazz"]}"#)
        _ = try music.store.apply([.updateTitle([0, 0, 3, 1], title: "genres")])
        _ = try music.store.apply([.insert(NewNode(title: "year", value: Scalar(.integer, "1959")), parent: [0, 0, 3], index: nil)])
        #expect(try linerText(music) == #"{"label":"Sony","genres":["modal","jazz"],"year":1959}"#)
        #expect(try music.store.apply([.delete([0, 0, 3, 1, 0])]) == [[0, 0, 3, 1, 0]])
        #expect(try linerText(music) == #"{"label":"Sony","genres":["jazz"],"year":1959}"#)
        #expect(music.titles([0, 0, 3]) == ["label", "genres", "year"])
        _ = try music.store.undo()
        #expect(try linerText(music) == #"{"label":"Sony","genres":["modal","jazz"],"year":1959}"#)
    }

    @Test("the field's node cannot be renamed or deleted, and errors carry the full path; nothing is written")
    func refuses() throws {
        var music = try Self.music()
        defer { music.cleanUp() }
        #expect(throws: EditError.self) { try music.store.apply([.delete([0, 0, 3])]) }
        do {
            _ = try music.store.apply([.setValue([0, 0, 3, 1], value: Scalar(.integer, "1"))])
            Issue.record("an array has no value")
        } catch {
            #expect(error.path == [0, 0, 3, 1])
        }
        #expect(try linerText(music) == Self.liner)
    }
}
