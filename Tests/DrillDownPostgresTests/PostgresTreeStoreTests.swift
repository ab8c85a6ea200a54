import DrillDownCore
import DrillDownPostgres
import Foundation
import Testing

/// The PostgreSQL store against a real server: `DRILLDOWN_TEST_PG_URL` (Scripts/test.sh starts a
/// throwaway cluster and sets it). Each test uses a table of its own.
enum PG {
    static let url = ProcessInfo.processInfo.environment["DRILLDOWN_TEST_PG_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let skip = "DRILLDOWN_TEST_PG_URL is unset: no PostgreSQL server to test against (Scripts/test.sh starts one)"

    static func location(_ table: String) throws -> PostgresLocation {
        try PostgresLocation(url: url!).naming(table: "t_\(table)_\(UInt32.random(in: 0 ... .max))")
    }

    static let library = TreeLiteral.object([
        ("Rows", .array([
            .row("Blue Train", [.row("Moment's Notice", [], [("plays", .int(3))]), .row("Locomotion")], [("year", .int(1957))]),
            .row("Kind of Blue", [.row("So What", [], [("plays", .int(7))])], [("year", .int(1959)), ("favorite", .bool(false))]),
            .row("Time Out"),
        ])),
    ]).tree

    /// A table holding `tree`, and a store over it that does not listen.
    static func store(_ name: String, _ tree: TreeStore = library) throws -> PostgresTreeStore {
        let location = try location(name)
        try PostgresTreeTable(location).write(tree, documentFormat: "json")
        return try PostgresTreeStore(location, listen: false)
    }

    /// The table as it is now, read whole.
    static func reread(_ store: PostgresTreeStore) throws -> TreeStore {
        try PostgresTreeTable(store.table.location).read().tree
    }

    /// Whether the store's lazy snapshot shows the screens of `tree`: root title, and per node its
    /// title, value, attributes and children, all the way down.
    static func shows(_ store: PostgresTreeStore, _ tree: TreeStore) -> Bool {
        let (a, b): (any Source, any Source) = (store.snapshot, DocumentSource(tree: tree, name: store.source.name))
        guard a.rootTitle == b.rootTitle else { return false }
        var stack = [(a.root, b.root)]
        while let (x, y) = stack.popLast() {
            let (cx, cy) = (a.children(of: x), b.children(of: y))
            guard a.title(of: x) == b.title(of: y), a.value(of: x) == b.value(of: y), a.attributes(of: x) == b.attributes(of: y),
                cx.count == cy.count
            else { return false }
            for i in 0 ..< cx.count { stack.append((cx[i], cy[i])) }
        }
        return true
    }
}

@Suite(.enabled(if: PG.url != nil, Comment(rawValue: PG.skip)))
struct PostgresTreeStoreTests {
    @Test func aDocumentRoundTripsThroughATable() throws {
        let tree = TreeLiteral.object([
            ("a", .array([.int(1), .scalar(.real, "2.50"), .string("42"), .null, .bool(true), .object([]), .array([])])),
            ("", .string("empty key")), ("ünïcödé", .string("✓ 𝄞")),
            ("tab\tnew\nline", .string("back\\slash\ttab\r\nCRLF \\N not null")),
        ]).tree
        let store = try PG.store("roundtrip", tree)
        #expect(try PG.reread(store).isStructurallyEqual(to: tree))
        #expect(PG.shows(store, tree))
    }

    @Test func everyKindOfChangeWritesWhatTheDocumentWouldHold() throws {
        var store = try PG.store("changes")
        var reference = EditableDocument(tree: PG.library)
        let steps: [[Change]] = [
            [.setAttribute([0, 0], key: "plays", value: Scalar(.integer, "4"))],
            [.updateTitle([1], title: "Kind of Blue (Legacy)")],
            [.insert(NewNode(title: "Giant Steps", attributes: [Attribute(key: "year", value: Scalar(.integer, "1960"))]), parent: .root, index: 1)],
            [.insert(NewNode(title: "Take Five"), parent: [3], index: nil)],
            [.move([0, 1], parent: [2], index: 0)],
            [.setAttribute([2], key: "favorite", value: nil)],
            [.delete([0, 0]), .insert(NewNode(title: "Lazy Bird"), parent: [0], index: 0)],
        ]
        for changes in steps {
            let expected = try reference.apply(changes)
            #expect(try store.apply(changes) == expected)
            #expect(PG.shows(store, reference.tree), "snapshot after \(changes)")
            #expect(try PG.reread(store).isStructurallyEqual(to: reference.tree), "table after \(changes)")
        }
    }

    @Test func undoAndRedoWriteEveryStepBackAndAgain() throws {
        var store = try PG.store("undo")
        var reference = EditableDocument(tree: PG.library)
        let steps: [[Change]] = [
            [.setAttribute([0, 0], key: "plays", value: Scalar(.integer, "4"))],
            [.updateTitle([1], title: "Kind of Blue (Legacy)")],
            [.insert(NewNode(title: "Giant Steps"), parent: .root, index: 1)],
            [.move([0, 1], parent: [2], index: 0)],
            [.delete([0]), .insert(NewNode(title: "Lazy Bird"), parent: [1], index: 0)],
        ]
        var trees = [PG.library]
        for changes in steps {
            _ = try reference.apply(changes)
            _ = try store.apply(changes)
            trees.append(reference.tree)
        }
        #expect(store.canUndo && !store.canRedo)
        // Undo all, then redo all, then undo half: the table and the snapshot follow each time.
        for k in stride(from: steps.count - 1, through: 0, by: -1) {
            #expect(try store.undo() != nil)
            #expect(try PG.reread(store).isStructurallyEqual(to: trees[k]), "table after undoing step \(k)")
            #expect(PG.shows(store, trees[k]), "snapshot after undoing step \(k)")
        }
        #expect(try store.undo() == nil)
        for k in 1 ... steps.count {
            #expect(try store.redo() != nil)
            #expect(try PG.reread(store).isStructurallyEqual(to: trees[k]), "table after redoing step \(k)")
        }
        #expect(try store.redo() == nil)
        _ = try store.undo()
        _ = try store.undo()
        #expect(try PG.reread(store).isStructurallyEqual(to: trees[steps.count - 2]))
        // A step whose rows another writer deleted meanwhile is a conflict and changes nothing.
        var other = try PostgresTreeStore(store.table.location, listen: false)
        _ = try other.apply([.delete([0])])
        let before = try PG.reread(store)
        #expect {
            _ = try store.redo()
        } throws: { ($0 as? EditError)?.reason == .conflict }
        #expect(try PG.reread(store).isStructurallyEqual(to: before))
    }

    @Test func anInvalidChangeChangesNothing() throws {
        var store = try PG.store("invalid")
        #expect(throws: EditError.self) { try store.apply([.delete([9])]) }
        #expect(throws: EditError.self) { try store.apply([.updateTitle([0], title: "New"), .delete([7, 7])]) }
        #expect(try PG.reread(store).isStructurallyEqual(to: PG.library))
        #expect(store.revision == 1)
    }

    @Test func appendsFromTwoStaleStoresBothLandAtTheEnd() throws {
        var a = try PG.store("appends")
        var b = try PostgresTreeStore(a.table.location, listen: false)
        for i in 0 ..< 5 {
            _ = try a.apply([.insert(NewNode(title: "A\(i)"), parent: .root, index: nil)])
            _ = try b.apply([.insert(NewNode(title: "B\(i)"), parent: .root, index: nil)])
        }
        let source = DocumentSource(tree: try PG.reread(a))
        let titles = source.children(of: source.root).map { source.title(of: $0) }
        #expect(titles.count == 13)
        #expect(titles.prefix(3) == ["Blue Train", "Kind of Blue", "Time Out"])
        #expect(titles.suffix(10) == ["A0", "B0", "A1", "B1", "A2", "B2", "A3", "B3", "A4", "B4"])
        // Each store's snapshot is the table as it is after its own change (b read a's rows in).
        #expect(PG.shows(b, try PG.reread(a)))
    }

    @Test func incrementsDerivedInsideTheStepCountEveryPressOfTwoStaleStores() throws {
        var a = try PG.store("presses")
        var b = try PostgresTreeStore(a.table.location, listen: false)
        let song = TreePath([0, 0])
        let press: (any Source) throws(EditError) -> [Change] = { source throws(EditError) in
            guard let id = source.node(at: song) else { throw EditError("no node", at: song) }
            let n = Int(source.attribute("plays", of: id)?.text ?? "0") ?? 0
            return [.setAttribute(song, key: "plays", value: Scalar(.integer, String(n + 1)))]
        }
        for _ in 0 ..< 20 {
            #expect(try a.apply(deriving: press).paths == [song])
            _ = try b.apply(deriving: press)
        }
        let after = DocumentSource(tree: try PG.reread(a))
        #expect(after.attribute("plays", of: after.node(at: song)!)?.text == "43")
        // Undo takes back b's last press only: the row is as b's step left it, so it may.
        _ = try b.undo()
        let undone = DocumentSource(tree: try PG.reread(a))
        #expect(undone.attribute("plays", of: undone.node(at: song)!)?.text == "42")
    }

    @Test func aChangeToARowDeletedElsewhereIsAConflictAndChangesNothing() throws {
        var a = try PG.store("conflict")
        var b = try PostgresTreeStore(a.table.location, listen: false)
        // b shows the first level (its page is read into b's snapshot), then a deletes its second row.
        #expect(b.snapshot.title(of: b.snapshot.node(at: [1])!) == "Kind of Blue")
        _ = try a.apply([.delete([1])])
        let before = try PG.reread(a)
        do {
            _ = try b.apply([.setAttribute([1], key: "favorite", value: Scalar(.bool, "true"))])
            Issue.record("a change to a deleted row was accepted")
        } catch {
            #expect(error.reason == .conflict)
            #expect(error.message.contains("another writer changed the rows here since they were shown"))
        }
        #expect(try PG.reread(a).isStructurallyEqual(to: before))
        // The conflict renewed b's snapshot; row [0, 0] is still there: the change is written.
        _ = try b.apply([.setAttribute([0, 0], key: "plays", value: Scalar(.integer, "9"))])
        let after = DocumentSource(tree: try PG.reread(a))
        #expect(after.childCount(of: after.root) == 2)
        #expect(after.attribute("plays", of: after.node(at: [0, 0])!)?.text == "9")
    }

    @Test func anotherInstancesChangeArrivesThroughNotify() async throws {
        let a0 = try PG.store("notify")
        var a = a0
        var b = try PostgresTreeStore(a.table.location, listen: true)
        b.pollInterval = .seconds(3600)    // only the notification can tell b
        // Once b's LISTEN is in place, a's NOTIFY cannot be missed (a fixed 300 ms was once too short).
        #expect(await b.waitUntilListening(), "b's LISTEN was not in place within 30 s")
        #expect(try b.refresh() == false)  // reads once for the new connection; nothing changed
        _ = try a.apply([.updateTitle([2], title: "Time Further Out")])
        // The deadline only bounds a failure; the loop ends as soon as the notification is heard.
        let start = ContinuousClock.now
        var seen = false
        while ContinuousClock.now - start < .seconds(30) {
            if try b.refresh() { seen = true; break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(seen, "b heard of a's change within 30 s")
        let source = b.snapshot
        #expect(source.title(of: source.node(at: [2])!) == "Time Further Out")
    }

    @Test func theListenerSaysWhenItListensAndStopsWaitingWhenStoppedCancelledOrOutOfTime() async throws {
        let store = try PG.store("listening")
        let listener = try PostgresListener(store.table.location)
        #expect(await listener.waitUntilListening(timeout: .seconds(30)))
        #expect(listener.state.connected && listener.state.generation == 1)
        #expect(await listener.listening(), "at once when already listening")
        listener.stop()
        #expect(await listener.listening() == false, "a stopped listener does not listen")

        // A server that is not there: the wait ends at its deadline, at cancellation, or at stop().
        let dead = try PostgresLocation(url: "postgres://dd@127.0.0.1:1/postgres?sslmode=disable").naming(table: store.table.location.table)
        let nowhere = try PostgresListener(dead)
        #expect(await nowhere.waitUntilListening(timeout: .milliseconds(200)) == false)
        let cancelled = Task { await nowhere.listening() }
        cancelled.cancel()
        #expect(await cancelled.value == false)
        let waiting = Task { await nowhere.listening() }
        nowhere.stop()
        #expect(await waiting.value == false)
    }

    @Test func searchesThroughTheTextIndexFindWhatAWalkOfTheDocumentFinds() throws {
        let store = try PG.store("search")
        let document = DocumentSource(tree: PG.library)
        let indexed = try #require(store.snapshot as? any IndexedSearch)
        for text in ["blue", "O", "time out", "So What", "1957", "false", "%", "_", "\\", "nothing like it"] {
            for values in [false, true] {
                let query = SearchQuery(text, includeValues: values, limit: 3)
                let found = try #require(try indexed.indexedFind(query, until: { false }), "answered through the index, not a walk")
                let walked = document.find(query)
                #expect(found.total == walked.total, "\(text) values: \(values)")
                #expect(found.hits.map { store.snapshot.path(of: $0) } == walked.hits.map { document.path(of: $0) }, "\(text) values: \(values)")
            }
        }
    }

    @Test func anUnreachableServerIsUnavailableNotInvalid() throws {
        var store = try PG.store("down")
        let dead = try PostgresLocation(url: "postgres://dd@127.0.0.1:1/postgres?sslmode=disable").naming(table: store.table.location.table)
        #expect(throws: PostgresStoreError.self) { try PostgresTreeTable(dead).read() }
        do {
            _ = try PostgresTreeTable(dead).read()
        } catch {
            #expect(error.unavailable)
        }
        #expect(try PostgresTreeTable(dead).ping() != nil)
        #expect(store.readiness() == nil)
        _ = try store.apply([.updateTitle([0], title: "Blue Train (Remastered)")])
    }

    @Test func urlsAndTheEnvironment() throws {
        let env = ["PGHOST": "db.example", "PGPORT": "6543", "PGUSER": "ann", "PGPASSWORD": "secret", "PGDATABASE": "music"]
        let bare = try PostgresLocation(url: "postgres://", environment: env)
        #expect(bare.host == "db.example" && bare.port == 6543 && bare.user == "ann" && bare.password == "secret" && bare.database == "music")
        #expect(bare.table == "drilldown" && bare.sslMode == .prefer)
        let full = try PostgresLocation(url: "postgresql://bob:pw@127.0.0.1:5999/lib?table=albums&sslmode=require", environment: env)
        #expect(full.host == "127.0.0.1" && full.port == 5999 && full.user == "bob" && full.password == "pw" && full.database == "lib")
        #expect(full.table == "albums" && full.sslMode == .require && full.channel == "drilldown_albums")
        #expect(!full.description.contains("pw"))
        #expect(throws: PostgresLocation.Invalid.self) { try PostgresLocation(url: "postgres://h/db?table=Bad-Name", environment: [:]) }
        #expect(throws: PostgresLocation.Invalid.self) { try PostgresLocation(url: "postgres://h/db?sslmode=sometimes", environment: [:]) }
        #expect(throws: PostgresLocation.Invalid.self) { try PostgresLocation(url: "postgres://h/db?colour=blue", environment: [:]) }
    }
}
