import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// The lazy JSON index (``LazyJSONSource``) against the full read (``DocumentSource`` over the
/// tree ``DocumentReader`` builds): on every valid document both show the same rows, titles,
/// values, attributes and paths, in the same reading mode; on every invalid one the lazy index
/// reports an error too, when opening or when the level that holds it is visited.
@Suite("Lazy JSON index against the full read")
struct LazyJSONSourceTests {
    /// A temporary file holding `bytes`, removed by the caller.
    static func file(_ bytes: [UInt8]) -> String {
        let path = NSTemporaryDirectory() + "lazy-json-\(UUID().uuidString).json"
        FileManager.default.createFile(atPath: path, contents: Data(bytes))
        return path
    }

    /// Every node in document order: its path, title, value, attributes, child count and parent,
    /// and whether its path leads back to it.
    static func dump(_ s: any Source) -> [String] {
        var out = ["root \(s.rootTitle) \(s.value(of: s.root).map { "\($0.kind)=\($0.text)" } ?? "-") \(s.attributes(of: s.root))"]
        func visit(_ n: NodeID, _ depth: Int) {
            let path = s.path(of: n)
            let value = s.value(of: n).map { "\($0.kind)=\($0.text)" } ?? "-"
            let attributes = s.attributes(of: n).map { "\($0.key)=\($0.value.kind):\($0.value.text)" }
            let parent = s.parent(of: n).map { s.path(of: $0).description } ?? "none"
            out.append("\(path) \(s.title(of: n).debugDescription) \(value) \(attributes) \(s.childCount(of: n)) \(parent) \(s.node(at: path) == n) \(s.attribute("value", of: n)?.text ?? "-")")
            guard depth < 64 else { return }
            for c in s.children(of: n) { visit(c, depth + 1) }
        }
        for c in s.children(of: s.root) { visit(c, 1) }
        return out
    }

    /// Reads `bytes` both ways (`generic` forces generic reading) and compares; returns whether it was valid JSON.
    @discardableResult
    static func compare(_ bytes: [UInt8], generic: Bool = false, complete: Bool = true, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        let path = file(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription
        let mode: ReadingMode? = generic ? .generic : nil
        let full: DocumentSource?
        let fullError: FormatError?
        do {
            full = DocumentSource(tree: try DocumentReader.read(contentsOf: path, format: .json).tree, mode: mode, name: "doc.json")
            fullError = nil
        } catch {
            full = nil
            fullError = error
        }
        let lazy: LazyJSONSource
        do {
            lazy = try LazyJSONSource(path: path, mode: mode, name: "doc.json")
        } catch {
            #expect(full == nil, "the lazy index refused valid JSON (\(error)) \(text)", sourceLocation: sourceLocation)
            return false
        }
        let lazyDump = dump(lazy)
        let failures = lazy.readFailures
        guard let full else {
            // Generically every byte is shown by the dump; an outline leaves nested attributes unread.
            #expect(!complete || failures.count > 0, "the lazy index read invalid JSON (\(fullError?.description ?? "")) without an error: \(text)", sourceLocation: sourceLocation)
            return false
        }
        #expect(failures.count == 0, "a read of valid JSON failed: \(failures.last ?? "") \(text)", sourceLocation: sourceLocation)
        #expect(lazy.mode == full.mode, "modes differ for \(text)", sourceLocation: sourceLocation)
        let fullDump = dump(full)
        #expect(lazyDump == fullDump, "different nodes for \(text)", sourceLocation: sourceLocation)
        if lazyDump != fullDump, let i = lazyDump.indices.first(where: { $0 >= fullDump.count || lazyDump[$0] != fullDump[$0] }) {
            Issue.record("first difference:\n lazy \(lazyDump[i])\n full \(i < fullDump.count ? fullDump[i] : "none")", sourceLocation: sourceLocation)
        }
        return true
    }

    /// A random outline row: a title (sometimes under `name`, sometimes missing or not a string),
    /// maybe children, maybe attributes of every kind.
    static func row(_ depth: Int, _ rng: inout SeededGenerator) -> String {
        var members: [String] = []
        let titles = ["\"Row\"", "\"a\\\"b\"", "\"é 😀\"", "\"\"", "12", "null", "\"x/y\"", "\"line\\nbreak\"", "[1]"]
        switch Int.random(in: 0 ..< 6, using: &rng) {
        case 0: members.append("\"name\": \(titles.randomElement(using: &rng)!)")
        case 1: break
        default: members.append("\"\(["Title", "title", "TITLE"].randomElement(using: &rng)!)\": \(titles.randomElement(using: &rng)!)")
        }
        if Int.random(in: 0 ..< 3, using: &rng) == 0 { members.append("\"value\": \(JSONScanDifferentialTests.value(4, &rng))") }
        if depth < 4, Int.random(in: 0 ..< 3, using: &rng) > 0 {
            let kids = (0 ..< Int.random(in: 0 ..< 5, using: &rng)).map { _ in
                Int.random(in: 0 ..< 12, using: &rng) == 0 ? JSONScanDifferentialTests.value(5, &rng) : row(depth + 1, &rng)
            }
            members.append("\"\(["Children", "items", "children"].randomElement(using: &rng)!)\" : [\n" + kids.joined(separator: ",\n") + "]")
        }
        if Int.random(in: 0 ..< 4, using: &rng) == 0 { members.append("\"tags\": [\"a\", \"b\", 3]") }
        members.shuffle(using: &rng)
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// A random outline document: a `Rows` object (maybe titled) or a top-level array of rows.
    static func outline(_ rng: inout SeededGenerator) -> String {
        let rows = (0 ..< Int.random(in: 0 ..< 6, using: &rng)).map { _ in row(1, &rng) }.joined(separator: ",\n ")
        switch Int.random(in: 0 ..< 3, using: &rng) {
        case 0: return "[" + rows + "]"
        case 1: return "{\"Title\": \"Top\", \"Rows\": [" + rows + "], \"extra\": {\"k\": 1}}"
        default: return "{\"Rows\": [" + rows + "]}"
        }
    }

    @Test("random documents show the same nodes, generically and as read by default")
    func randomDocuments() {
        var rng = SeededGenerator(seed: 1313)
        var valid = 0
        for i in 0 ..< 400 {
            let text = [" ", "", "\n\t"].randomElement(using: &rng)! + JSONScanDifferentialTests.value(0, &rng) + ["", "\n", "  \r\n"].randomElement(using: &rng)!
            if Self.compare(Array(text.utf8), generic: i % 2 == 0) { valid += 1 }
        }
        #expect(valid == 400)
    }

    @Test("random outlines show the same rows, titles, attributes and paths")
    func randomOutlines() {
        var rng = SeededGenerator(seed: 77)
        for i in 0 ..< 400 {
            let text = Self.outline(&rng)
            #expect(Self.compare(Array(text.utf8), generic: i % 5 == 0))
        }
    }

    @Test("damaged documents: an error from the full read is an error from the lazy index once every level is read")
    func damagedDocuments() {
        var rng = SeededGenerator(seed: 5)
        let junk: [UInt8] = Array("{}[]\",:\\ x1-.eE\ttn".utf8) + [0xC3, 0x00, 0x0A]
        var invalid = 0
        for _ in 0 ..< 500 {
            var bytes = Array((Int.random(in: 0 ..< 2, using: &rng) == 0 ? Self.outline(&rng) : JSONScanDifferentialTests.value(0, &rng)).utf8)
            guard !bytes.isEmpty else { continue }
            for _ in 0 ..< Int.random(in: 1 ... 2, using: &rng) {
                let at = Int.random(in: 0 ..< bytes.count, using: &rng)
                switch Int.random(in: 0 ..< 3, using: &rng) {
                case 0: bytes[at] = junk.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(junk.randomElement(using: &rng)!, at: at)
                }
                if bytes.isEmpty { bytes = [0x20] }
            }
            if !Self.compare(bytes, generic: true) { invalid += 1 }
            // Read by default (outlines too): never a crash, and the same nodes when valid.
            Self.compare(bytes, complete: false)
        }
        #expect(invalid > 100)
    }

    @Test("a syntax error deep in the file opens fine and fails the visit of its level, with the full read's line and column")
    func lateSyntaxError() throws {
        let text = """
            {"Rows": [
              {"Title": "Good", "Children": [{"Title": "Leaf"}]},
              {"Title": "Bad", "Children": [
                {"Title": "One"},
                {"Title": tru}
              ]}
            ]}
            """
        let path = Self.file(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lazy = try LazyJSONSource(path: path)
        let rows = lazy.children(of: lazy.root)
        #expect(rows.count == 2)
        #expect(lazy.title(of: rows[1]) == "Bad")
        #expect(lazy.readFailures.count == 0)
        // Showing the level reads its rows' titles: the second one's is not valid JSON.
        let level = lazy.children(of: rows[1])
        #expect(level.count == 2)
        #expect(lazy.title(of: level[0]) == "One")
        #expect(lazy.readFailures.count == 0)
        _ = lazy.title(of: level[1])
        #expect(lazy.readFailures.count == 1)
        var fullError: FormatError?
        do { _ = try DocumentReader.read(contentsOf: path, format: .json) } catch { fullError = error }
        #expect(fullError?.line == 5 && fullError?.column == 15)
        #expect(lazy.readFailures.last == fullError?.description)
        // Asked again, it fails again (a server answers 503 every time), and the good level still reads.
        _ = lazy.title(of: level[1])
        #expect(lazy.readFailures.count == 2)
        #expect(lazy.children(of: rows[0]).count == 1)
        #expect(lazy.readFailures.count == 2)
    }

    @Test("the one-pass search finds what the full read finds: generic documents, competing title and children keys")
    func searchInOnePass() throws {
        var rng = SeededGenerator(seed: 2024)
        // Rows whose title and children keys compete (the best-ranked key wins, the first of equals),
        // whose children key may hold no array, titles and keys with escapes, after or before children.
        let competing = [
            #"{"items": [{"Title": "Row a"}], "Children": [{"Title": "Row b"}, "row c"], "name": "Row top"}"#,
            #"{"Children": "row not a list", "items": [{"Title": "Row d"}], "title": "Row e"}"#,
            #"{"children": [{"title": "Row f"}], "CHILDREN": [{"title": "x"}, {"title": "Row g"}], "Title": "Row h", "note": "row attribute"}"#,
            #"{"n\u0061me": "Row i", "Title": {"x": "row"}, "Children": [["row j", 1], {"T\u0069tle": "Row\n k"}]}"#,
            #"{"Title": "R\u006Fw l", "value": "rOw value", "items": [{"Title": "Row m", "Children": []}]}"#,
        ]
        for i in 0 ..< 240 {
            let generic = i % 3 == 0
            var text = generic ? JSONScanDifferentialTests.value(0, &rng) : Self.outline(&rng)
            if !generic, text.hasSuffix("]}") || text.hasSuffix("]") {
                // Put a competing row first in the rows list.
                let rows = text.range(of: "[")!.upperBound
                let row = competing.randomElement(using: &rng)!
                text.insert(contentsOf: row + (text[rows...].first(where: { $0 != " " && $0 != "\n" }) == "]" ? "" : ", "), at: rows)
            }
            let path = Self.file(Array(text.utf8))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let mode: ReadingMode? = generic ? .generic : nil
            let tree = try DocumentReader.read(contentsOf: path, format: .json).tree
            let full = DocumentSource(tree: tree, mode: mode, name: "doc.json")
            let lazy = try LazyJSONSource(path: path, mode: mode, name: "doc.json")
            for query in ["row", "a", "é", "1", "untitled", "\n", "e"] {
                for values in [false, true] {
                    let q = SearchQuery(query, includeValues: values, limit: 4)
                    let needle = Array(query.lowercased().utf8)
                    let streamed = try lazy.streamingFind(needle, q, until: { false })
                    #expect(streamed != nil, "a valid document was not searched in one pass: \(text)")
                    let a = full.find(q), b = lazy.find(q)
                    #expect(a.total == b.total, "\(query) \(values): \(a.total) vs \(b.total) in \(text)")
                    #expect(a.hits.map { full.path(of: $0) } == b.hits.map { lazy.path(of: $0) }, "\(query) \(values) in \(text)")
                    // The walk level by level, kept for invalid files, agrees too.
                    let level = try lazy.levelFind(needle, q, until: { false })
                    #expect(level?.total == a.total && level?.hits.map { lazy.path(of: $0) } == a.hits.map { full.path(of: $0) })
                }
            }
            #expect(lazy.readFailures.count == 0)
        }
    }

    @Test("an invalid file is searched level by level, its errors recorded; a cancelled search stops")
    func searchFallsBackAndCancels() throws {
        let text = #"{"Rows": [{"Title": "Row 1"}, {"Title": "Row 2", "Children": [{"Title": "Row 3"}, {"Title": tru}]}]}"#
        let path = Self.file(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lazy = try LazyJSONSource(path: path)
        let q = SearchQuery("row", limit: 10)
        #expect(try lazy.streamingFind(Array("row".utf8), q, until: { false }) == nil)
        let found = lazy.find(q)
        #expect(found.total == 3)
        #expect(lazy.readFailures.count >= 1)
        #expect(lazy.readFailures.last?.contains(":1:93: error: invalid literal; expected 'true'") == true, "\(lazy.readFailures)")
        let rows = (0 ..< 20_000).map { #"{"Title": "Row \#($0)"}"# }.joined(separator: ",")
        let big = Self.file(Array(("[" + rows + "]").utf8))
        defer { try? FileManager.default.removeItem(atPath: big) }
        let many = try LazyJSONSource(path: big)
        var asked = 0
        #expect(throws: SearchCancelled.self) {
            _ = try many.streamingFind(Array("row".utf8), q) {
                asked += 1
                return asked > 1
            }
        }
    }

    @Test("nesting past the full read's limit is its error, at its bracket, when visited and when searched")
    func nestingLimit() throws {
        let limit = JSONReader.maxDepth
        // Generic arrays, and outline rows (an object and its children array per level).
        let row = #"{"Title": "r", "Children": ["#
        let documents = [
            (String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1), true),
            (String(repeating: "[", count: limit) + String(repeating: "]", count: limit), false),
            (#"{"Rows": ["# + String(repeating: row, count: limit / 2) + String(repeating: "]}", count: limit / 2) + "]}", true),
            (#"{"Rows": ["# + String(repeating: row, count: limit / 2 - 1) + String(repeating: "]}", count: limit / 2 - 1) + "]}", false),
        ]
        for (text, tooDeep) in documents {
            let path = Self.file(Array(text.utf8))
            defer { try? FileManager.default.removeItem(atPath: path) }
            var fullError: FormatError?
            do { _ = try DocumentReader.read(contentsOf: path, format: .json) } catch { fullError = error }
            #expect((fullError != nil) == tooDeep, "\(fullError?.description ?? "read")")
            // Visiting level after level.
            let lazy = try LazyJSONSource(path: path)
            var node = lazy.root, levels = 0
            while let first = lazy.children(of: node).first {
                node = first
                levels += 1
            }
            #expect(lazy.readFailures.count == (tooDeep ? 1 : 0))
            #expect(lazy.readFailures.last == fullError?.description)
            // Searching, in a source that has visited nothing yet.
            let fresh = try LazyJSONSource(path: path)
            _ = fresh.find(SearchQuery("x", includeValues: true, limit: 3))
            #expect(fresh.readFailures.count == (tooDeep ? 1 : 0))
            #expect(fresh.readFailures.last == fullError?.description)
        }
    }

    @Test("an unclosed container and trailing text are refused when opening, with line and column")
    func refusedWhenOpening() {
        for (text, location) in [
            ("[1, 2", "1:6"), ("{\"Rows\": [{\"Title\": \"a\"}]} x", "1:28"), ("[1, 2}", "1:6"), ("[[1] x, 2]", "1:6"),
            ("{\"Rows\": [{\"Title\": \"a\"}, 1 2]}", "1:29"), ("[1,]", "1:4"), ("{\"a\" 1}", "1:6"),
        ] {
            let path = Self.file(Array(text.utf8))
            defer { try? FileManager.default.removeItem(atPath: path) }
            var fullError: FormatError?
            do { _ = try DocumentReader.read(contentsOf: path, format: .json) } catch { fullError = error }
            do {
                let lazy = try LazyJSONSource(path: path)
                Issue.record("opened \(text); \(lazy.readFailures)")
            } catch {
                #expect(error == fullError, "\(text)")
                #expect(error.description.contains(":\(location): error: "), "\(error.description)")
            }
        }
    }

    @Test("a bracket closed by the other kind is refused where the level scan notices it")
    func mismatchedBrackets() {
        // Depth counting takes `}` for the `[`'s end: the scan finds the array unclosed at the end
        // of the input (the full read stops at the `}` itself, 2:16).
        let path = Self.file(Array("\n  [\"a\", {\"b\": [}]".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: FormatError.self) { try LazyJSONSource(path: path) }
        do { _ = try LazyJSONSource(path: path) } catch { #expect(error.description.contains(":2:18: error: expected ',' or ']' after array element, found end of input")) }
    }

    @Test("levels wider than one scan batch and strings across block boundaries")
    func wideLevels() throws {
        var parts: [String] = []
        for i in 0 ..< 40_000 { parts.append(i % 7 == 0 ? "\"s\\\"[{\(String(repeating: "\\\\", count: i % 5))\"" : "\(i)") }
        let text = "[" + parts.joined(separator: ",") + "]"
        let path = Self.file(Array(text.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let lazy = try LazyJSONSource(path: path)
        let items = lazy.children(of: lazy.root)
        #expect(items.count == 40_000)
        #expect(lazy.value(of: items[39_999])?.text == "39999")
        #expect(lazy.value(of: items[7])?.text == "s\"[{\\\\")
        #expect(lazy.statistics.topLevelCount == 40_000)
        #expect(lazy.statistics.levelBytes >= 40_000 * 4 && lazy.statistics.levelBytes < 40_000 * 6)
    }

    @Test("find walks the file and finds what the full read finds")
    func search() {
        var rng = SeededGenerator(seed: 99)
        for _ in 0 ..< 60 {
            let bytes = Array(Self.outline(&rng).utf8)
            let path = Self.file(bytes)
            defer { try? FileManager.default.removeItem(atPath: path) }
            guard let tree = try? DocumentReader.read(contentsOf: path, format: .json).tree, let lazy = try? LazyJSONSource(path: path) else {
                Issue.record("unreadable outline")
                continue
            }
            let full = DocumentSource(tree: tree)
            for query in ["row", "a", "é", "1", "untitled"] {
                for values in [false, true] {
                    let q = SearchQuery(query, includeValues: values, limit: 3)
                    let a = full.find(q), b = lazy.find(q)
                    #expect(a.total == b.total, "\(query) \(values): \(a.total) vs \(b.total)")
                    #expect(a.hits.map { full.path(of: $0) } == b.hits.map { lazy.path(of: $0) })
                }
            }
        }
    }
}
