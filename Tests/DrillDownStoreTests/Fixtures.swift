import DrillDownCore
import DrillDownStore
import Foundation
import GRDB

/// A document written as a Swift value, for building test trees.
typealias Doc = TreeLiteral

extension TreeLiteral {
    /// An integer scalar given as its text.
    static func integer(_ s: String) -> TreeLiteral { .scalar(.integer, s) }
}

/// The outline of `Examples/Data.plist`: Item 1–4 under "Root", Item 4 › Screen G › H › I › J.
let seedTree: TreeStore = {
    func row(_ title: String, _ children: [Doc] = []) -> Doc { .row(title, children) }
    return Doc.object([
        ("Title", .string("Root")),
        ("Rows", .array([
            row("Item 1", [row("Screen A"), row("Screen B")]),
            row("Item 2", [row("Screen C")]),
            row("Item 3", [row("Screen D"), row("Screen E"), row("Screen F")]),
            row("Item 4", [row("Screen G", [row("Screen H", [row("Screen I", [row("Screen J")])])])]),
        ])),
    ]).tree
}()

/// Every kind, with texts that only survive when kinds and bytes are kept exactly.
let everyKindTree: TreeStore = Doc.object([
    ("integer", .integer("42")),
    ("string 42", .string("42")),
    ("real", .scalar(.real, "42.0")),
    ("exponent", .scalar(.real, "1e-7")),
    ("big", .integer("123456789012345678901234567890")),
    ("true", .scalar(.bool, "true")),
    ("null", .scalar(.null, "null")),
    ("date", .scalar(.date, "2024-02-29T12:34:56Z")),
    ("data", .scalar(.data, "AAECAwQF/w==")),
    ("empty object", .object([])),
    ("empty array", .array([])),
    ("empty string", .string("")),
    ("", .string("empty key")),
    ("clé ✓ 日本語 🎵", .string("unicode value ü ß 𝄞")),
    ("nul\u{0}byte", .string("a\u{0}b")),
    ("nested", .array([.array([.array([])]), .object([("x", .array([.integer("1"), .scalar(.real, "2.5")]))])])),
]).tree

/// A random tree from a seeded generator: mixed kinds, widths and depths.
func randomTree(seed: UInt64, nodes: Int) -> TreeStore {
    var rng = SeededGenerator(seed: seed)
    var builder = TreeBuilder()
    var budget = nodes
    func scalar() -> (ValueKind, String) {
        switch Int.random(in: 0 ..< 7, using: &rng) {
        case 0: (.string, String((0 ..< Int.random(in: 0 ..< 12, using: &rng)).map { _ in "aé z✓0🎵".randomElement(using: &rng)! }))
        case 1: (.integer, String(Int.random(in: -1_000_000 ... 1_000_000, using: &rng)))
        case 2: (.real, String(Double.random(in: -1e6 ... 1e6, using: &rng)))
        case 3: (.bool, Bool.random(using: &rng) ? "true" : "false")
        case 4: (.null, "")
        case 5: (.date, "2020-01-0\(Int.random(in: 1 ... 9, using: &rng))T00:00:00Z")
        default: (.data, "3q2+7w==")
        }
    }
    // An explicit stack of open containers and how many members each still gets.
    var open: [(kind: ValueKind, remaining: Int)] = []
    func node(key: String?) {
        budget -= 1
        builder.beginNode()
        if let key { builder.appendText(key) }
        builder.endKey()
        if budget > 0, open.count < 40, Int.random(in: 0 ..< 3, using: &rng) == 0 {
            let kind: ValueKind = Bool.random(using: &rng) ? .object : .array
            builder.openContainer(kind)
            open.append((kind, Int.random(in: 0 ... 8, using: &rng)))
        } else {
            let (kind, text) = scalar()
            builder.appendText(text)
            builder.finishScalar(kind)
        }
    }
    node(key: nil)
    if open.isEmpty {
        return builder.build()
    }
    while let top = open.last {
        if top.remaining > 0, budget > 0 {
            open[open.count - 1].remaining -= 1
            node(key: top.kind == .object ? "k\(Int.random(in: 0 ..< 50, using: &rng))" : nil)
        } else {
            open.removeLast()
            builder.closeContainer()
        }
    }
    return builder.build()
}

/// SplitMix64: a small deterministic generator for reproducible random trees.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A fresh temporary folder, removed by the caller with `cleanUp()`.
struct TempFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("drilldown-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    func cleanUp() { try? FileManager.default.removeItem(at: url) }
}

/// Creates a music database: `artists` artists, each with `albums` albums of `songs` songs,
/// plus one artist ("Wide") with `wideAlbums` albums when given.
func makeMusicDatabase(at path: String, artists: Int = 3, albums: Int = 2, songs: Int = 3, wideAlbums: Int = 0) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in
        try db.execute(sql: """
            CREATE TABLE artists(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
            CREATE TABLE albums(id INTEGER PRIMARY KEY, artist_id INTEGER NOT NULL REFERENCES artists(id),
                                title TEXT NOT NULL, year INTEGER, art TEXT);
            CREATE INDEX albums_by_artist ON albums(artist_id);
            CREATE TABLE songs(id INTEGER PRIMARY KEY, album_id INTEGER NOT NULL REFERENCES albums(id),
                               name TEXT NOT NULL, track INTEGER, length INTEGER, rating REAL, cover BLOB);
            CREATE INDEX songs_by_album ON songs(album_id, track);
            """)
        var albumID = 0
        var songID = 0
        // Artists are inserted in reverse name order, so ordering by year/track is visible.
        for a in 0 ..< artists {
            try db.execute(sql: "INSERT INTO artists(id, name, country) VALUES (?, ?, ?)", arguments: [a + 1, "Artist \(a + 1)", a % 2 == 0 ? "US" : nil])
            for b in (0 ..< albums).reversed() {
                albumID += 1
                try db.execute(
                    sql: "INSERT INTO albums(id, artist_id, title, year, art) VALUES (?, ?, ?, ?, ?)",
                    arguments: [albumID, a + 1, "Album \(a + 1).\(b + 1)", 1960 + b, "art/\(albumID).png"])
                for s in (0 ..< songs).reversed() {
                    songID += 1
                    try db.execute(
                        sql: "INSERT INTO songs(id, album_id, name, track, length, rating, cover) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        arguments: [songID, albumID, "Song \(a + 1).\(b + 1).\(s + 1)", s + 1, 180 + s, 4.5, Data([1, 2, 3])])
                }
            }
        }
        if wideAlbums > 0 {
            try db.execute(sql: "INSERT INTO artists(id, name) VALUES (?, 'Wide')", arguments: [artists + 1])
            let statement = try db.makeStatement(sql: "INSERT INTO albums(artist_id, title, year) VALUES (?, ?, ?)")
            for i in 0 ..< wideAlbums {
                try statement.execute(arguments: [artists + 1, String(format: "Wide %05d", i), 2000 + i])
            }
        }
    }
}

/// The mapping of the music database: artists › albums (by year) › songs (by track).
let musicMapping = RelationalMapping(levels: [
    .init(table: "artists", title: "name", key: "id", kind: "artist"),
    .init(table: "albums", title: "title", key: "id", parent: "artist_id", order: ["year"], kind: "album"),
    .init(table: "songs", title: "name", parent: "album_id", order: ["track"], kind: "song"),
])

/// One step of a random edit sequence on the music tables: a change, an undo or a redo.
enum MusicStep {
    case change(Change), undo, redo, none
}

/// A random step for the music mapping's tree `source` (step number `step` names new titles):
/// inserts, renames, typed attributes, deletes, moves of songs between albums, undo and redo.
func randomMusicStep(_ source: any Source, step: Int, using rng: inout SeededGenerator) -> MusicStep {
    func random(depth: Int) -> TreePath? {
        var path = TreePath.root
        for _ in 0 ..< depth {
            guard let id = source.node(at: path) else { return nil }
            let n = source.childCount(of: id)
            guard n > 0 else { return nil }
            path = TreePath(path.indices + [Int.random(in: 0 ..< n, using: &rng)])
        }
        return path
    }
    let depth = Int.random(in: 1 ... 3, using: &rng)
    var change: Change?
    switch Int.random(in: 0 ..< 9, using: &rng) {
    case 0, 1:
        if let parent = random(depth: depth - 1) {
            let count = source.childCount(of: source.node(at: parent)!)
            change = .insert(NewNode(title: "New \(step)"), parent: parent, index: Bool.random(using: &rng) ? nil : Int.random(in: 0 ... count, using: &rng))
        }
    case 2: change = random(depth: depth).map { .updateTitle($0, title: "Title \(step)") }
    case 3: change = random(depth: 2).map { .setAttribute($0, key: "year", value: Scalar(.integer, String(Int.random(in: 1950 ... 1970, using: &rng)))) }
    case 4: change = random(depth: 3).map { .setAttribute($0, key: "length", value: Scalar(.integer, String(step))) }
    case 5: change = random(depth: depth).map { .delete($0) }
    case 6:
        if let song = random(depth: 3), let album = random(depth: 2) {
            change = .move(song, parent: album, index: Int.random(in: 0 ... 3, using: &rng))
        }
    case 7: return .undo
    default: return .redo
    }
    return change.map { .change($0) } ?? .none
}
