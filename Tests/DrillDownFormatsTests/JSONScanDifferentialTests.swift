#if canImport(Glibc)
import Glibc
#endif
import CDrillDownSIMD
import DrillDownCore
@testable import DrillDownFormats
import Testing

/// The SIMD structural scan + indexed stage (``JSONIndexedParser``) against the one-pass
/// ``JSONParser`` it replaces on the fast path: on every input both build the same tree, or the
/// fast path declines and the one-pass parser reports an error.
@Suite("JSON fast path against the one-pass parser")
struct JSONScanDifferentialTests {
    /// Every node as kind, title, value, child count and parent, in document order.
    static func dump(_ t: TreeStore) -> [String] {
        t.nodes.map { n in
            "\(t.kind(of: n).rawValue)|\(t.title(of: n))|\(Array(t.valueBytes(of: n)))|\(t.childCount(of: n))|\(t.parent(of: n)?.rawValue ?? -1)"
        }
    }

    /// Compares both readers on `bytes` (the fast path with its scan on the parser's thread and on
    /// a second thread, which must agree); returns whether the input was valid.
    @discardableResult
    static func compare(_ bytes: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            let fast = (try? JSONIndexedParser.read(buffer, threaded: false)) ?? nil
            let threaded = (try? JSONIndexedParser.read(buffer, threaded: true)) ?? nil
            #expect(fast.map(dump) == threaded.map(dump), "the threaded scan differs", sourceLocation: sourceLocation)
            var old: TreeStore?
            var failure: ParseFailure?
            if let base = buffer.baseAddress, !buffer.isEmpty {
                var parser = JSONParser(base: base, count: buffer.count)
                do throws(ParseFailure) { old = try parser.parse() } catch { failure = error }
            }
            let text = String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription
            switch (fast, old) {
            case (let f?, let o?):
                #expect(dump(f) == dump(o), "different trees for \(text)", sourceLocation: sourceLocation)
                // The fast path's depth and widest level are recorded while building; the one-pass parser's are walked.
                #expect(f.maxDepth() == o.maxDepth() && f.widestLevel() == o.widestLevel(), "different shape for \(text)", sourceLocation: sourceLocation)
            case (nil, _?):
                Issue.record("fast path declined valid JSON \(text)", sourceLocation: sourceLocation)
            case (_?, nil):
                Issue.record("fast path accepted invalid JSON (\(failure?.message ?? "")) \(text)", sourceLocation: sourceLocation)
            case (nil, nil):
                break
            }
            return old != nil
        }
    }

    /// A random JSON value: strings with escapes, backslash runs, quotes, unicode and structural
    /// characters inside; numbers of every shape; nesting; whitespace of every kind.
    static func value(_ depth: Int, _ rng: inout SeededGenerator) -> String {
        let pieces = ["a", "\\\\", "\\\"", "\\n", "\\/", "é", "😀", " ", "{", "}", "[", ":", ",", "\\u0041", "\\u00e9", "\\uD834\\uDD1E", "\\\\\\\"", "\\t"]
        switch Int.random(in: 0 ..< (depth > 5 ? 4 : 7), using: &rng) {
        case 0:
            return "\"" + (0 ..< Int.random(in: 0 ..< 100, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined() + "\""
        case 1:
            return ["0", "-1", "3.25", "1e9", "-0.0E-2", "123456789012345678901234567890", "1E+2", "0.5", "12345678", "-7654321.123456789e-12345678", "99999999"].randomElement(using: &rng)!
        case 2:
            return ["true", "false", "null"].randomElement(using: &rng)!
        case 3:
            return "\"\(String(repeating: "x", count: Int.random(in: 0 ..< 70, using: &rng)))\""
        case 4:
            let items = (0 ..< Int.random(in: 0 ..< 6, using: &rng)).map { _ in value(depth + 1, &rng) }
            return "[" + items.joined(separator: [",", " , ", ",\n  ", "\t,\r\n"].randomElement(using: &rng)!) + "]"
        default:
            // A key may appear once per object: one chosen again gets its member's index.
            var used: Set<String> = []
            func unique(_ key: String, _ i: Int) -> String { used.insert(key).inserted ? key : key + "\(i)" }
            let members = (0 ..< Int.random(in: 0 ..< 6, using: &rng)).map { i in
                if value(9, &rng).hasPrefix("\"") { return "\"" + unique("k\\\\", i) + "\":" + value(depth + 1, &rng) }
                let key = unique(["key", "", "é", "a\\\"b", "\\\\"].randomElement(using: &rng)!, i)
                return "\"" + key + "\"" + [":", " : ", "\n:\n"].randomElement(using: &rng)! + value(depth + 1, &rng)
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    @Test("random documents give the same tree")
    func randomDocuments() {
        var rng = SeededGenerator(seed: 13)
        for _ in 0 ..< 3000 {
            let text = [" ", "", "\n\t"].randomElement(using: &rng)! + Self.value(0, &rng) + ["", "\n", "  \r\n"].randomElement(using: &rng)!
            #expect(Self.compare(Array(text.utf8)))
        }
    }

    @Test("documents of many index batches give the same tree, wherever a batch ends")
    func acrossBatches() {
        // Stage 2 reads the structural index a batch (JSONIndexedParser.batch entries) at a time:
        // long documents of random values put every kind of token, escaped string and run of
        // closing brackets across a refill somewhere; damaging one byte makes the fast path stop mid-batch.
        var rng = SeededGenerator(seed: 23)
        let specials: [UInt8] = Array("{}[]\":,\\ 0e".utf8)
        for round in 0 ..< 24 {
            var items: [String] = []
            var size = 0
            while size < 40 * JSONIndexedParser.batch {
                let item = Self.value(1, &rng)
                size += item.utf8.count
                items.append(item)
            }
            let text = "[" + String(repeating: " ", count: round) + items.joined(separator: ",") + "]"
            #expect(Self.compare(Array(text.utf8)))
            var bytes = Array(text.utf8)
            bytes[Int.random(in: 1 ..< bytes.count, using: &rng)] = specials.randomElement(using: &rng)!
            Self.compare(bytes)
        }
    }

    @Test("a document longer than the threaded scan's ring of batches, whole and damaged late")
    func aroundTheRing() {
        // JSONThreadedFeed's ring holds `slots` batches: a document of several times that wraps
        // it, with the parser copying its unread entries across every batch boundary; damage near
        // the end stops the parser while the scanning thread waits for a free slot.
        var rng = SeededGenerator(seed: 29)
        var items: [String] = []
        var entries = 0
        while entries < 3 * JSONThreadedFeed.slots * JSONIndexedParser.batch {
            let item = Self.value(2, &rng)
            entries += item.utf8.count / 3
            items.append(item)
        }
        let text = "{\"rows\": [" + items.joined(separator: ",") + "], \"end\": true}"
        #expect(Self.compare(Array(text.utf8)))
        for offset in [text.utf8.count / 2, text.utf8.count - 40] {
            var bytes = Array(text.utf8)
            bytes[offset] = UInt8(ascii: "}")
            Self.compare(bytes)
        }
    }

    /// Every entry a feed hands out, read one at a time through its window, then its verdict.
    /// At most `limit` entries are read (a broken feed may never reach its end).
    static func entries<Feed: JSONIndexFeed>(_ feed: inout Feed, limit: Int = .max, pause: () -> Void = {}) -> (entries: [UInt64], valid: Bool) {
        var positions = UnsafeMutablePointer<UInt32>(bitPattern: 8)!, bytes = UnsafeMutablePointer<UInt8>(bitPattern: 8)!
        var n = 0, k = 0
        feed.start(&positions, &bytes, &n)
        pause()
        var out: [UInt64] = []
        while true {
            if n - k < JSONIndexedParser.reachOfParse && !feed.atEnd { feed.refill(&positions, &bytes, &k, &n) }
            if k == n && feed.atEnd || out.count == limit { break }
            out.append(UInt64(positions[k]) << 8 | UInt64(bytes[k]))
            k += 1
        }
        #expect(out.count == limit || bytes[k] == JSONStructuralScanner.end)
        return (out, feed.finish())
    }

    @Test("the threaded scan hands out the same index entries, also when its ring is full")
    func threadedEntries() {
        var rng = SeededGenerator(seed: 31)
        // Over three rings' worth of entries (most values here are one to three entries).
        let items = (0 ..< JSONThreadedFeed.slots * JSONIndexedParser.batch).map { _ in Self.value(4, &rng) }
        let bytes = Array(("[" + items.joined(separator: ",") + "]").utf8)
        bytes.withUnsafeBufferPointer { buffer in
            let tail = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
            defer { tail.deallocate() }
            let scanner = JSONStructuralScanner(base: buffer.baseAddress!, count: buffer.count, start: 0, tail: tail)
            var plain = JSONScanFeed(scanner)
            let expected = Self.entries(&plain)
            #expect(expected.valid && expected.entries.count > 3 * JSONThreadedFeed.slots * JSONIndexedParser.batch)
            guard let probe = JSONThreadedFeed.started(scanner) else {
                Issue.record("no scanning thread")
                return
            }
            var threaded = probe
            // The parser stalls until the scanner has filled the whole ring (and would overwrite
            // batches not yet read if it did not wait for them to be handed back).
            let got = Self.entries(&threaded, limit: expected.entries.count + 1) {
                while probe.batchesWritten < JSONThreadedFeed.slots && !probe.scanDone { sched_yield() }
                usleep(20_000)
            }
            #expect(got.valid)
            // Compared as a Bool: a diff of two arrays of this size would take minutes to print.
            let common = min(got.entries.count, expected.entries.count)
            let firstDifference = (0 ..< common).first { got.entries[$0] != expected.entries[$0] } ?? common
            let same = got.entries.count == expected.entries.count && firstDifference == got.entries.count
            #expect(same, "entries differ from entry \(firstDifference) (\(got.entries.count) against \(expected.entries.count))")
        }
    }

    #if os(Linux)
    @Test("stage 1 counts the processors this process may run on (its affinity mask), not those online")
    func usableProcessors() throws {
        // /proc's list of allowed CPUs, e.g. "0-1" or "0,2-3".
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") })
        let allowed = line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces).split(separator: ",").map { range in
            let ends = range.split(separator: "-").compactMap { Int($0) }
            return ends.count == 2 ? ends[1] - ends[0] + 1 : 1
        }.reduce(0, +)
        #expect(Int(dd_usable_processors()) == allowed)
        #expect(JSONThreadedFeed.usableProcessors == allowed)
    }
    #endif

    @Test("the sizing counts (SSE2 and, where the processor has it, AVX2) match a byte loop")
    func sizingCounts() {
        var rng = SeededGenerator(seed: 37)
        let alphabet = Array("{}[]\":, \t\r\n\\a0é".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xFF, 0x5B | 0x20, 0x7D & ~0x20]
        for length in Array(0 ..< 140) + [255 * 32, 255 * 32 + 31, 255 * 16 * 3 + 5, 100_000] {
            let bytes = (0 ..< length).map { _ in alphabet.randomElement(using: &rng)! }
            var separators: UInt64 = 0, syntax: UInt64 = 0
            for b in bytes {
                let separator = b == 0x2C || b | 0x20 == 0x7B
                if separator { separators += 1 }
                if separator || b <= 0x20 || b == 0x22 || b == 0x3A || b | 0x20 == 0x7D { syntax += 1 }
            }
            bytes.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
                let plain = dd_json_count(base, UInt64(length)), fast = dd_json_count_fast(base, UInt64(length))
                #expect(plain.separators == separators && plain.syntax == syntax, "length \(length)")
                #expect(fast.separators == separators && fast.syntax == syntax, "length \(length)")
            }
        }
    }

    /// The whole structural index of `bytes` and whether the scanner accepted them, with runs of
    /// plain blocks scanned in C or by the scanner's own Swift block scan.
    static func structuralIndex(_ bytes: [UInt8], plainBlocksInC: Bool) -> (positions: [UInt32], bytes: [UInt8], valid: Bool) {
        let capacity = bytes.count + 64 + 2 * JSONStructuralScanner.slack + 64
        var positions = [UInt32](repeating: 0, count: capacity), entries = [UInt8](repeating: 0, count: capacity)
        let tail = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        defer { tail.deallocate() }
        return bytes.withUnsafeBufferPointer { input in
            var scanner = JSONStructuralScanner(base: input.baseAddress!, count: input.count, start: 0, tail: tail)
            scanner.plainBlocksInC = plainBlocksInC
            let n = scanner.fill(&positions, &entries, from: 0, capacity: capacity)
            #expect(scanner.atEnd)
            return (Array(positions[..<n]), Array(entries[..<n]), scanner.isValid)
        }
    }

    @Test("plain blocks scanned in C (AVX2 where the processor has it, and SSE2) give the Swift block scan's index")
    func plainBlocks() {
        var rng = SeededGenerator(seed: 41)
        // Mostly plain text: quotes and `{}[]:,` that open and close strings across blocks, with a
        // rare backslash, non-ASCII byte or control byte (where the C scan must stop).
        let plain = Array("{}[]\":, \n\t\rabc019-.e".utf8) + Array("\"key\": ".utf8)
        let rare: [UInt8] = [0x5C, 0xC3, 0xA9, 0x01, 0x0B, 0x7F, 0xFF]
        for round in 0 ..< 400 {
            let length = round < 200 ? Int.random(in: 60 ..< 400, using: &rng) : Int.random(in: 400 ..< 5000, using: &rng)
            let rareRate = [0, 0, 0.001, 0.01].randomElement(using: &rng)!
            let bytes = (0 ..< length).map { _ in
                Double.random(in: 0 ..< 1, using: &rng) < rareRate ? rare.randomElement(using: &rng)! : plain.randomElement(using: &rng)!
            }
            let inC = Self.structuralIndex(bytes, plainBlocksInC: true), inSwift = Self.structuralIndex(bytes, plainBlocksInC: false)
            #expect(inC.valid == inSwift.valid, "round \(round)")
            #expect(inC.positions == inSwift.positions && inC.bytes == inSwift.bytes, "round \(round)")
            // The C entry point (AVX2 when there is one) against its SSE2 build, from the first block.
            bytes.withUnsafeBufferPointer { input in
                let base = input.baseAddress!, blocks = UInt64((length - 1) / 64), room = 64 * Int(blocks) + 64
                var results: [(UInt64, UInt64, dd_json_carry, [UInt32], [UInt8])] = []
                for scan in [dd_json_scan_plain, dd_json_scan_plain_baseline] {
                    var positions = [UInt32](repeating: 0, count: room), entries = [UInt8](repeating: 0, count: room)
                    var n: UInt64 = 0, carry = dd_json_carry(inStringCarry: 0, scalarCarry: 0)
                    let done = scan(base, 0, blocks, &positions, &entries, &n, UInt64(room - 64), &carry)
                    results.append((done, n, carry, Array(positions[..<Int(n)]), Array(entries[..<Int(n)])))
                }
                let (a, b) = (results[0], results[1])
                #expect(a.0 == b.0 && a.1 == b.1 && a.2.inStringCarry == b.2.inStringCarry && a.2.scalarCarry == b.2.scalarCarry, "round \(round)")
                #expect(a.3 == b.3 && a.4 == b.4, "round \(round)")
                // Without backslashes, non-ASCII and control bytes (a line break may fall inside a string), every block is plain.
                if rareRate == 0 && !bytes.contains(where: { $0 < 0x20 }) { #expect(a.0 == blocks, "scanned whole in C (round \(round))") }
            }
        }
    }

    @Test("damaged documents give the same tree or both readers reject them")
    func damagedDocuments() {
        var rng = SeededGenerator(seed: 17)
        let specials: [UInt8] = Array("{}[]\":,\\ \n\t0-.eEaftnu".utf8) + [0x00, 0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xFF]
        for _ in 0 ..< 6000 {
            let bytes = damaged(Array(Self.value(0, &rng).utf8), with: specials, &rng)
            Self.compare(bytes)
        }
    }

    @Test("random byte soup of JSON tokens gives the same verdict")
    func tokenSoup() {
        var rng = SeededGenerator(seed: 19)
        let tokens = ["{", "}", "[", "]", ",", ":", "\"", "\\", "\\\\", "\\\"", "\\u00e9", "\\uD83D", "\\x", "1", "-0", "0.5e+3", "01", "1.", "-",
                      "true", "false", "null", "tru", "nul", " ", "\n", "\t", "\r", "\u{1}", "é", "a", "\"k\":", "\"s\"", "\u{7F}", "\u{FEFF}"]
        for _ in 0 ..< 6000 {
            let text = (0 ..< Int.random(in: 1 ..< 60, using: &rng)).map { _ in tokens.randomElement(using: &rng)! }.joined()
            Self.compare(Array(text.utf8))
        }
    }

    @Test("backslash runs, quotes and non-ASCII at every position around 64-byte block edges")
    func blockEdges() {
        for pad in 0 ..< 70 {
            for run in 0 ..< 5 {
                for tail in ["\"", "n\"", "\"]", "é\"", "\"x"] {
                    let text = "[\"" + String(repeating: "a", count: pad) + String(repeating: "\\", count: run) + tail + ",1]"
                    Self.compare(Array(text.utf8))
                    let key = "{\"" + String(repeating: "b", count: pad) + String(repeating: "\\", count: run) + tail + ":true}"
                    Self.compare(Array(key.utf8))
                }
            }
            Self.compare(Array((String(repeating: " ", count: pad) + "123" + String(repeating: "\n", count: pad)).utf8))
            Self.compare(Array(("[" + String(repeating: "1,", count: pad) + "1]").utf8))
            Self.compare(Array(("{\"é\":\"" + String(repeating: "😀", count: pad) + "\"}").utf8))
        }
    }

    @Test("byte-order mark, empty input, lone values and truncated UTF-8")
    func edges() {
        for text in ["\u{FEFF}{\"a\":1}", "\u{FEFF}", "", " ", "0", "-", "\"\"", "\"", "[]", "{}", "[1,]", "{\"a\":1,}", "nul", "true false", "1 2", "[1 2]",
                     "{\"a\" 1}", "{1:2}", "[\"a\"\"b\"]", "[1\"a\"]", "[true\"a\"]", "\"\\u12\"", "\"\\uDC00\"", "\"\\uD800\\u0041\"", "[01]", "[1.e5]", "[-]", "[1e]", "[.5]"] {
            Self.compare(Array(text.utf8))
        }
        Self.compare([0x22, 0xC3, 0x22])
        Self.compare([0x22, 0xE2, 0x82, 0x22])
        Self.compare([0x22, 0xF0, 0x9F, 0x98, 0x80, 0x22])
        Self.compare([0x22, 0xED, 0xA0, 0x80, 0x22])
        Self.compare([0x22, 0x09, 0x22])
        Self.compare([0x5B, 0x0B, 0x31, 0x5D])
    }

    @Test("nesting at and just past the depth limit")
    func depth() {
        for depth in [JSONReader.maxDepth - 1, JSONReader.maxDepth, JSONReader.maxDepth + 1] {
            Self.compare(Array((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8))
            Self.compare(Array((String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8))
        }
    }

    @Test("errors through JSONReader keep the one-pass parser's message and position")
    func errorsUnchanged() throws {
        let cases: [(String, Int, String)] = [
            ("[1,\n 2,,3]", 7, "expected a value"), ("{\"a\":1 \"b\":2}", 7, "expected ',' or '}'"), ("[\"ab\\q\"]", 4, "invalid escape"),
        ]
        for (text, offset, message) in cases {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                do throws(ParseFailure) {
                    _ = try JSONReader.read(buffer)
                    Issue.record("no error for \(text)")
                } catch {
                    #expect(error.offset == offset, "\(text): \(error.message)")
                    #expect(error.message.hasPrefix(message), "\(text): \(error.message)")
                }
            }
        }
    }
}
