import DrillDownCore
import Foundation
import GRDB
import Testing
@testable import DrillDownStore

@Suite("SQLite tree table")
struct TreeTableTests {
    /// Writes `tree` to a fresh database and reads it back.
    func roundTrip(_ tree: TreeStore) throws -> TreeStore {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let store = try SQLiteTreeStore(path: folder.path("t.sqlite"))
        try store.write(tree, documentFormat: "json")
        return try SQLiteTreeStore(path: folder.path("t.sqlite"), readOnly: true).read()
    }

    @Test("Examples/Data.plist's outline survives document → SQLite → document")
    func seedRoundTrip() throws {
        let back = try roundTrip(seedTree)
        #expect(back.isStructurallyEqual(to: seedTree))
        let source = DocumentSource(tree: back)
        #expect(source.rootTitle == "Root")
        #expect(source.titlePath(of: source.node(at: [3, 0, 0, 0, 0])!) == "Item 4/Screen G/Screen H/Screen I/Screen J")
    }

    @Test("every kind keeps its kind and exact text: 42, 42.0, \"42\", dates, data, null, empties, unicode and NUL bytes")
    func everyKind() throws {
        let back = try roundTrip(everyKindTree)
        #expect(back.isStructurallyEqual(to: everyKindTree))
        let source = DocumentSource(tree: back, mode: .generic)
        func value(_ key: String) -> Scalar? {
            source.children(of: source.root).first { back.key(of: $0) == key }.flatMap { back.value(of: $0) }
        }
        #expect(value("integer") == Scalar(.integer, "42"))
        #expect(value("string 42") == Scalar(.string, "42"))
        #expect(value("real") == Scalar(.real, "42.0"))
        #expect(value("date")?.kind == .date)
        #expect(value("data") == Scalar(.data, "AAECAwQF/w=="))
        #expect(value("null")?.kind == .null)
        #expect(value("clé ✓ 日本語 🎵") == Scalar(.string, "unicode value ü ß 𝄞"))
        #expect(value("nul\u{0}byte") == Scalar(.string, "a\u{0}b"))
        #expect(value("") == Scalar(.string, "empty key"))
    }

    @Test("a scalar root and an empty container root round-trip")
    func trivialRoots() throws {
        for doc in [Doc.string("alone"), .scalar(.null, ""), .object([]), .array([])] {
            #expect(try roundTrip(doc.tree).isStructurallyEqual(to: doc.tree))
        }
    }

    @Test("random trees round-trip exactly", arguments: 1 ... 25)
    func randomTrees(seed: UInt64) throws {
        let tree = randomTree(seed: seed, nodes: Int(seed) * 40)
        #expect(try roundTrip(tree).isStructurallyEqual(to: tree))
    }

    @Test("a 100 000-deep chain reads back without recursion")
    func deepChain() throws {
        var b = TreeBuilder()
        let depth = 100_000
        for _ in 0 ..< depth {
            b.beginNode()
            b.appendText("k")
            b.endKey()
            b.openContainer(.object)
        }
        for _ in 0 ..< depth { b.closeContainer() }
        let tree = b.build()
        let back = try roundTrip(tree)
        #expect(back.isStructurallyEqual(to: tree))
        #expect(back.maxDepth() == depth - 1)
    }

    @Test("the database is in WAL mode with the layout recorded in meta, and nodes are indexed by (parent, position)")
    func walAndMeta() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let store = try SQLiteTreeStore(path: folder.path("t.sqlite"))
        try store.write(seedTree, documentFormat: "plist")
        #expect(try store.journalMode() == "wal")
        #expect(try store.documentFormat() == "plist")
        #expect(try store.holdsTreeTable())
        let queue = try DatabaseQueue(path: folder.path("t.sqlite"))
        try queue.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal")
            #expect(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'format'") == "drilldown-tree")
            #expect(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'version'") == "2")
            let plan = try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT * FROM nodes WHERE parent = 5 ORDER BY position")
                .map { $0["detail"] as String }.joined()
            #expect(plan.contains("nodes_by_parent"))
            // Item 4's row is the fourth child of the Rows array.
            let rows = try Int64.fetchOne(db, sql: "SELECT id FROM nodes WHERE key = 'Rows'")!
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM nodes WHERE parent = ?", arguments: [rows]) == 4)
        }
        // A second write without a format keeps the recorded one.
        try store.write(everyKindTree)
        #expect(try store.documentFormat() == "plist")
    }

    @Test("edits saved through the DocumentModel hook persist across a reopen")
    func saveHookPersists() async throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("seed.sqlite")
        try SQLiteTreeStore(path: path).write(seedTree, documentFormat: "json")
        do {
            let store = try SQLiteTreeStore(path: path)
            let model = DocumentModel(document: EditableDocument(source: DocumentSource(tree: try store.read())), save: store.save)
            try await model.apply(.updateTitle([0], title: "First"))
            try await model.apply(.delete([1]))
            try await model.apply(.setAttribute([2, 0], key: "plays", value: Scalar(.integer, "3")))
        }
        let reopened = DocumentSource(tree: try SQLiteTreeStore(path: path, readOnly: true).read())
        #expect(reopened.children(of: reopened.root).map { reopened.title(of: $0) } == ["First", "Item 3", "Item 4"])
        #expect(reopened.attribute("plays", of: reopened.node(at: [2, 0])!) == Scalar(.integer, "3"))
    }

    @Test("a write that fails midway leaves the previously committed tree")
    func failedWriteRollsBack() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("t.sqlite")
        let store = try SQLiteTreeStore(path: path)
        try store.write(seedTree, documentFormat: "json")
        // A trigger makes the last statement of the next write fail, after the nodes were rewritten.
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TRIGGER refuse BEFORE INSERT ON meta WHEN NEW.value = 'boom'
                BEGIN SELECT RAISE(ABORT, 'refused by test'); END
                """)
        }
        #expect(throws: StoreError.self) { try store.write(everyKindTree, documentFormat: "boom") }
        #expect(try store.read().isStructurallyEqual(to: seedTree))
    }

    @Test("garbage after the SQLite header is a clear error, not a crash")
    func corruptFile() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("bad.sqlite")
        var bytes = SQLiteFile.header
        var rng = SeededGenerator(seed: 7)
        bytes += (0 ..< 4000).map { _ in UInt8.random(in: 0 ... 255, using: &rng) }
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        #expect(SQLiteFile.isDatabase(atPath: path))
        let error = #expect(throws: StoreError.self) { try SQLiteTreeStore(path: path, readOnly: true).read() }
        #expect(error?.description.hasPrefix(path + ": ") == true)
        #expect(error?.message.contains("corrupt") == true || error?.message.contains("not an SQLite database") == true)
    }

    @Test("a database without a nodes table says to use a schema with levels")
    func notATreeTable() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        try makeMusicDatabase(at: folder.path("music.db"))
        let store = try SQLiteTreeStore(path: folder.path("music.db"), readOnly: true)
        #expect(try !store.holdsTreeTable())
        let error = #expect(throws: StoreError.self) { try store.read() }
        #expect(error?.message.contains("levels:") == true)
    }

    @Test("nodes tables that do not form one tree are rejected, naming the node", arguments: [
        ("INSERT INTO nodes VALUES (0, NULL, 0, 0, NULL, NULL), (1, 7, 0, 2, 'a', 'x')", "names parent 7"),
        ("INSERT INTO nodes VALUES (0, NULL, 0, 0, NULL, NULL), (1, NULL, 0, 2, 'a', 'x')", "both have no parent"),
        ("INSERT INTO nodes VALUES (0, NULL, 0, 0, NULL, NULL), (1, 2, 0, 0, 'a', NULL), (2, 1, 0, 0, 'b', NULL)", "cannot be reached"),
        ("INSERT INTO nodes VALUES (0, 1, 0, 0, NULL, NULL), (1, 0, 0, 0, 'a', NULL)", "no root"),
        ("INSERT INTO nodes VALUES (0, NULL, 0, 2, NULL, 'x'), (1, 0, 0, 2, 'a', 'y')", "cannot hold children"),
        ("INSERT INTO nodes VALUES (0, NULL, 0, 99, NULL, NULL)", "not a known kind"),
        ("SELECT 1", "empty"),
    ])
    func malformedTables(sql: String, message: String) throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("t.sqlite")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER, position INTEGER, kind INTEGER, key TEXT, value TEXT)")
            try db.execute(sql: sql)
        }
        let error = #expect(throws: StoreError.self) { try SQLiteTreeStore(path: path, readOnly: true).read() }
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test("a nodes table this code did not write is never replaced, and reading never changes the journal mode")
    func foreignNodesTable() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("theirs.db")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER, position INTEGER, kind INTEGER, key TEXT, value TEXT)")
            try db.execute(sql: "INSERT INTO nodes VALUES (0, NULL, 0, 1, NULL, NULL)")
        }
        #expect(try SQLiteTreeStore(path: path, readOnly: true).read().isStructurallyEqual(to: Doc.array([]).tree))
        #expect(try DatabaseQueue(path: path).read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "delete")
        let error = #expect(throws: StoreError.self) { try SQLiteTreeStore(path: path).write(seedTree) }
        #expect(error?.message.contains("refusing to replace it") == true)
        #expect(try SQLiteTreeStore(path: path, readOnly: true).read().count == 1)
    }

    @Test("rows written by another tool in any id and position order read in position order")
    func foreignOrder() throws {
        let folder = try TempFolder()
        defer { folder.cleanUp() }
        let path = folder.path("t.sqlite")
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TABLE nodes(id INTEGER PRIMARY KEY, parent INTEGER, position INTEGER, kind INTEGER, key TEXT, value TEXT);
                INSERT INTO nodes VALUES (50, 10, 2, 2, NULL, 'c'), (10, NULL, 0, 1, NULL, NULL),
                                         (30, 10, 0, 2, NULL, 'a'), (40, 10, 1, 3, NULL, '7');
                """)
        }
        let tree = try SQLiteTreeStore(path: path, readOnly: true).read()
        #expect(tree.isStructurallyEqual(to: Doc.array([.string("a"), .integer("7"), .string("c")]).tree))
    }
}
