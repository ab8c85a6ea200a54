import Foundation
import Testing
@testable import DrillDownCore

@Suite("Presence")
struct PresenceTests {
    let start = ContinuousClock.now

    @Test("a reader sees the other users on their level, once each, by name; not themselves, not other levels")
    func perLevel() {
        var presence = Presence()
        presence.record(PresenceBeat(page: "a1", user: "ana", level: [0]), at: start)
        presence.record(PresenceBeat(page: "a2", user: "ana", level: [0]), at: start)
        presence.record(PresenceBeat(page: "c1", user: "cy", level: [0]), at: start)
        presence.record(PresenceBeat(page: "b1", user: "bo", level: [0]), at: start)
        presence.record(PresenceBeat(page: "d1", user: "di", level: [1]), at: start)
        #expect(presence.visitors(of: [0], for: "bo") { _ in true }.map(\.user) == ["ana", "cy"])
        #expect(presence.visitors(of: [1], for: "bo") { _ in true }.map(\.user) == ["di"])
        #expect(presence.visitors(of: .root, for: "bo") { _ in true }.isEmpty)
    }

    @Test("a page counts until its beat says it is gone, or for the expiry after its last beat")
    func expiry() {
        var presence = Presence(expiry: .seconds(30))
        let changed1 = presence.record(PresenceBeat(page: "a1", user: "ana", level: [0]), at: start)
        #expect(changed1)
        let changed2 = presence.record(PresenceBeat(page: "c1", user: "cy", level: [0]), at: start)
        #expect(changed2)
        // A heartbeat changes nothing that shows, but keeps the page.
        let changed3 = presence.record(PresenceBeat(page: "a1", user: "ana", level: [0]), at: start + .seconds(20))
        #expect(!changed3)
        let changed4 = presence.expire(at: start + .seconds(30))
        #expect(!changed4)
        let changed5 = presence.expire(at: start + .seconds(31))
        #expect(changed5)
        #expect(presence.visitors(of: [0], for: "bo") { _ in true }.map(\.user) == ["ana"])
        let changed6 = presence.record(PresenceBeat(page: "a1", user: "ana", level: [0], gone: true), at: start + .seconds(32))
        #expect(changed6)
        #expect(presence.isEmpty)
        let changed7 = presence.record(PresenceBeat(page: "a1", user: "ana", level: [0], gone: true), at: start + .seconds(33))
        #expect(!changed7)
        let changed8 = presence.expire(at: start + .seconds(100))
        #expect(!changed8)
    }

    @Test("the rows a user edits are marked, and a change of row or level counts as a change")
    func editingMarker() {
        var presence = Presence()
        presence.record(PresenceBeat(page: "a1", user: "ana", level: [0]), at: start)
        let changed9 = presence.record(PresenceBeat(page: "a1", user: "ana", level: [0], editing: [0, 2]), at: start)
        #expect(changed9)
        presence.record(PresenceBeat(page: "a2", user: "ana", level: [0], editing: [0, 1]), at: start)
        #expect(presence.visitors(of: [0], for: "bo") { _ in true } == [PresenceVisitor(user: "ana", editing: [[0, 1], [0, 2]])])
        let changed10 = presence.record(PresenceBeat(page: "a1", user: "ana", level: [0]), at: start)
        #expect(changed10)
        let changed11 = presence.record(PresenceBeat(page: "a2", user: "ana", level: [1]), at: start)
        #expect(changed11)
        #expect(presence.visitors(of: [0], for: "bo") { _ in true } == [PresenceVisitor(user: "ana")])
    }

    @Test("nothing shows on a level the reader may not read, and no marker on a row hidden from them")
    func access() {
        var presence = Presence()
        presence.record(PresenceBeat(page: "a1", user: "ana", level: .root, editing: [1]), at: start)
        presence.record(PresenceBeat(page: "a2", user: "ana", level: [1], editing: [1, 0]), at: start)
        let hidesJazz: (TreePath) -> Bool = { !$0.hasPrefix([1]) }
        #expect(presence.visitors(of: .root, for: "bo", mayRead: hidesJazz) == [PresenceVisitor(user: "ana")])
        #expect(presence.visitors(of: [1], for: "bo", mayRead: hidesJazz).isEmpty)
    }

    @Test("initials: first letters of the first and last words, or the first two letters of one word")
    func initials() {
        #expect(PresenceVisitor.initials(of: "ana lima") == "AL")
        #expect(PresenceVisitor.initials(of: "ana.de.lima") == "AL")
        #expect(PresenceVisitor.initials(of: "bo") == "BO")
        #expect(PresenceVisitor.initials(of: "x") == "X")
        #expect(PresenceVisitor.initials(of: "émile_zola") == "ÉZ")
        #expect(PresenceVisitor.initials(of: "__") == "__")
    }

    @Test("a beat's JSON names paths as text, and a malformed path is refused")
    func beatJSON() throws {
        let beat = PresenceBeat(page: "i.1", user: "ana", level: [0, 1], editing: [0, 1, 2])
        let json = String(decoding: try JSONEncoder().encode(beat), as: UTF8.self)
        #expect(json.contains("\"level\":\"0.1\"") && json.contains("\"editing\":\"0.1.2\"") && !json.contains("gone"))
        #expect(try JSONDecoder().decode(PresenceBeat.self, from: Data(json.utf8)) == beat)
        let gone = PresenceBeat(page: "i.1", user: "ana", level: .root, gone: true)
        #expect(try JSONDecoder().decode(PresenceBeat.self, from: try JSONEncoder().encode(gone)) == gone)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(PresenceBeat.self, from: Data(#"{"page":"p","user":"u","level":"0.x"}"#.utf8))
        }
    }

    @Test("an outline or columns page is on every level it shows: it sees and is seen by the pages on any of them")
    func manyLevels() {
        var presence = Presence()
        presence.record(PresenceBeat(page: "a1", user: "ana", levels: [.root, [0], [0, 2]], editing: [0, 1]), at: start)
        presence.record(PresenceBeat(page: "b1", user: "bo", level: [0]), at: start)
        presence.record(PresenceBeat(page: "c1", user: "cy", levels: [[1], [1, 0]]), at: start)
        let all: (TreePath) -> Bool = { _ in true }
        // bo's level page on 0 sees ana's outline (editing 0.1 there), not cy's columns elsewhere.
        #expect(presence.visitors(of: [0], for: "bo", mayRead: all) == [PresenceVisitor(user: "ana", editing: [[0, 1]])])
        // ana's outline sees bo on one of its levels; cy's columns on 1 and 1.0 see no one.
        #expect(presence.visitors(showing: [.root, [0], [0, 2]], for: "ana", mayRead: all) == [PresenceVisitor(user: "bo")])
        #expect(presence.visitors(showing: [[1], [1, 0]], for: "cy", mayRead: all).isEmpty)
        // A reader showing only the root sees ana, without the marker of a row on level 0.
        #expect(presence.visitors(showing: [.root], for: "cy", mayRead: all) == [PresenceVisitor(user: "ana")])
        // Levels the reader may not read do not count.
        #expect(presence.visitors(showing: [[0]], for: "cy") { !$0.hasPrefix([0]) }.isEmpty)
    }

    @Test("a page's levels and edited row follow the rows when rows above them are deleted, added or moved")
    func follow() {
        var presence = Presence()
        presence.record(PresenceBeat(page: "a1", user: "ana", levels: [[0], [0, 3]], editing: [0, 3, 1]), at: start)
        presence.record(PresenceBeat(page: "b1", user: "bo", level: [2]), at: start)
        let moved = presence.follow(applied([.delete([0, 0])], [[0, 0]]))
        #expect(moved)
        #expect(presence.visitors(of: [0, 2], for: "bo") { _ in true } == [PresenceVisitor(user: "ana", editing: [[0, 2, 1]])])
        presence.follow(applied([.insert(NewNode(title: "x"), parent: [0, 2], index: 0)], [[0, 2, 0]]))
        #expect(presence.visitors(of: [0, 2], for: "bo") { _ in true } == [PresenceVisitor(user: "ana", editing: [[0, 2, 2]])])
        // The edited row moved to the front of level 1; a deleted row is edited no more, and a deleted level is left.
        presence.follow(applied([.move([0, 2], parent: [1], index: 0)], [[1, 0]]))
        #expect(presence.visitors(of: [1, 0], for: "bo") { _ in true } == [PresenceVisitor(user: "ana", editing: [[1, 0, 2]])])
        presence.follow(applied([.delete([1, 0])], [[1, 0]]))
        #expect(presence.beats.first { $0.page == "a1" } == PresenceBeat(page: "a1", user: "ana", levels: [[0]]))
        #expect(presence.beats.first { $0.page == "b1" }?.levels == [[2]])
    }

    /// An event of `changes` applied, each affecting `paths[k]`.
    func applied(_ changes: [Change], _ paths: [TreePath], origin: ChangeEvent.Origin = .apply) -> ChangeEvent {
        ChangeEvent(revision: 1, origin: origin, changes: changes, paths: paths, summary: "", history: HistoryState(), source: DocumentSource(tree: soundsDoc.tree))
    }

    @Test("a beat of several levels lists them in its JSON; one of a single level keeps the old form")
    func levelsJSON() throws {
        let beat = PresenceBeat(page: "i.2", user: "ana", levels: [.root, [0]])
        let json = String(decoding: try JSONEncoder().encode(beat), as: UTF8.self)
        #expect(json.contains(#""levels":["","0"]"#) && json.contains(#""level":"""#))
        #expect(try JSONDecoder().decode(PresenceBeat.self, from: Data(json.utf8)) == beat)
        #expect(try JSONDecoder().decode(PresenceBeat.self, from: Data(#"{"page":"p","user":"u","level":"3"}"#.utf8)).levels == [[3]])
    }
}
