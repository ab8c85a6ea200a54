import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// ``YAMLBlockReader``, DrillDown's own scanner for block-style YAML, against the event parser's
/// path (``YAMLParser`` into ``YAMLStreamReader``, else ``YAMLComposer``): on every input the block
/// reader builds the same tree as the parser's path, or declines and leaves the input to it (which
/// reads it or reports its error with line and column). It must never accept what the parser refuses.
@Suite("YAML block reader against the event parser")
struct YAMLBlockDifferentialTests {
    enum Outcome { case accepted, declined, invalid }

    /// The event parser's tree of `buffer`, or its failure.
    static func parsed(_ buffer: UnsafeBufferPointer<UInt8>, limit: ExpansionLimit) -> Result<TreeStore, ParseFailure> {
        if let tree = (try? YAMLStreamReader.read(buffer, limit: limit)) ?? nil { return .success(tree) }
        var composer = YAMLComposer(inputBytes: buffer.count, limit: limit)
        do throws(ParseFailure) {
            let root = try composer.compose(buffer)
            return .success(composer.build(root))
        } catch {
            return .failure(error)
        }
    }

    /// Compares both paths on `bytes` (input that is not UTF-8 never reaches them: the reader refuses it first).
    @discardableResult
    static func compare(_ bytes: [UInt8], limit: ExpansionLimit = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Outcome {
        bytes.withUnsafeBufferPointer { buffer in
            guard UTF8Validation.firstInvalidOffset(in: buffer) == nil else { return .invalid }
            let fast = (try? YAMLBlockReader.read(buffer, limit: limit)) ?? nil
            let shown = String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription
            switch (fast, parsed(buffer, limit: limit)) {
            case (let f?, .success(let l)):
                #expect(JSONScanDifferentialTests.dump(f) == JSONScanDifferentialTests.dump(l), "different trees for \(shown)", sourceLocation: sourceLocation)
                return .accepted
            case (_?, .failure(let failure)):
                Issue.record("block reader accepted what the event parser refuses (\(failure.message)): \(shown)", sourceLocation: sourceLocation)
                return .invalid
            case (nil, .success):
                return .declined
            case (nil, .failure):
                return .invalid
            }
        }
    }

    @discardableResult
    static func compare(_ text: String, limit: ExpansionLimit = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Outcome {
        compare(Array(text.utf8), limit: limit, sourceLocation: sourceLocation)
    }

    // MARK: Random block documents, as people write them

    static let plainScalars = [
        "plain", "two words", "42", "-17", "+12", "0", "00", "0x1F", "0o17", "017", "0b101", "1_000", "1:30", "190:20:30", "2.5", "1e3",
        "1.0e+5", ".5", "-.inf", ".NaN", "yes", "No", "on", "OFF", "y", "n", "true", "False", "~", "null", "NULL", "2001-12-14",
        "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5", "é😀", "東京", "<<", "a:b", "a#b", "a -b", "-x", "--x",
        "http://x.y/z?q=1#f", "x]", "x}", "x,y", "x[0]", "a'b", "a\"b", "a\\nb", "a  b", "=", "0x_1", "1:2:3.5", "\u{A0}nbsp",
        "a\u{A0}", "-", "k::", "12:", "x: y", "x:", "!x", "&x", "*x", "|", ">", "?x", ":x", "%x", "@x", "`x", "[x]", "{x}", "a\u{85}b", "a\u{2028}b",
        "a\u{FEFF}b", "a\u{7F}b", "a\tb", "0x" + String(repeating: "F", count: 5000),
    ]
    static let quotedScalars = [
        "'single'", "'it''s'", "''", "''''", "\"double\"", "\"\"", "\"esc \\\" \\\\ \\/ \\n \\t \\0 \\a \\b \\v \\f \\r \\e \\  \\N \\_ \\L \\P\"",
        "\"\\x41\\u00e9\\U0001F600\\x7f\\u0085\\uFEFF\"", "\"\\xZZ\"", "\"\\x4\"", "\"\\uD800\"", "\"\\U00110000\"", "\"\\q\"", "\"tab\there\"",
        "'tab\there'", "\"a\" b", "'a'#c", "'unterminated", "\"# not a comment\"", "'a: b'", "\"\\\"", "'é''東'", "\"a\\\tb\"",
        "\"\\u00\"", "\"ctl\u{1}\"", "\"c1\u{85}\"",
    ]
    static let keys = [
        "a", "b", "key", "Title", "two words", "'a'", "\"quoted\"", "\"esc\\n\"", "1", "0x1", "yes", "~", "é", "<<", "k:x", "'<<'", "a#b",
        "-k", "\"\"", "''", "null", "a ", "[k]", "{k}", "? k", "&k a", "!!str k", "*k", "\"a\"", "k" + String(repeating: "x", count: 1010),
    ]

    /// Scalars and keys of the subset the block reader takes (its "clean" documents use only these).
    static let cleanPlain = Array(plainScalars.prefix { $0 != "-" })
    static let cleanQuoted = Array(quotedScalars.prefix(8))
    static let cleanKeys = ["a", "b", "key", "Title", "two words", "\"quoted\"", "\"esc\\n\"", "1", "0x1", "yes", "~", "é", "k:x", "'<<'", "a#b", "-k", "null", "\"\""]

    /// A random value written at `indent`: a scalar (`inline`), or the lines of a mapping or sequence.
    struct Node {
        var inline: String?
        var lines: [String] = []
        var isSequence = false
    }

    /// Random block documents; `clean` ones use only what the block reader takes.
    struct Generator {
        var rng: SeededGenerator
        var clean = false

        mutating func pick(_ all: [String], _ subset: [String]) -> String {
            (clean ? subset : all).randomElement(using: &rng)!
        }

        mutating func comment() -> String {
            pick(["", "", "", " # note", "  #", " #: - x", "\t# tab"], ["", "", "", " # note", "  #", " #: - x", " #\ttab"])
        }

        mutating func scalar() -> String {
            switch Int.random(in: 0 ..< 10, using: &rng) {
            case 0 ..< 6: return pick(plainScalars, cleanPlain)
            case 6 ..< 9: return pick(quotedScalars, cleanQuoted)
            default: return pick(["{}", "[]", "{ }", "[1]", "{a: 1}", "&a x", "*a", "!!binary aGVsbG8=", "|\n  x", "!!str 1"], ["{}", "[]"])
            }
        }

        mutating func node(_ depth: Int, indent: Int) -> Node {
            let pad = String(repeating: " ", count: indent)
            switch Int.random(in: 0 ..< (depth > 4 ? 1 : 5), using: &rng) {
            case 0:
                return Node(inline: scalar())
            case 1, 2:
                var node = Node()
                var used = Set<String>()
                for _ in 0 ..< Int.random(in: 1 ... 4, using: &rng) {
                    let key = pick(keys, cleanKeys)
                    if clean && !used.insert(key).inserted { continue }
                    let step = Int.random(in: 1 ... 4, using: &rng)
                    let child = self.node(depth + 1, indent: indent + step)
                    if let inline = child.inline {
                        let empty = Int.random(in: 0 ..< 8, using: &rng) == 0
                        node.lines.append(pad + key + (empty ? ":" : ": " + inline) + comment())
                    } else if child.isSequence && Bool.random(using: &rng) {
                        // A sequence may sit at its key's indentation.
                        node.lines.append(pad + key + ":" + comment())
                        node.lines += sequence(depth + 1, indent: indent).lines
                    } else {
                        node.lines.append(pad + key + ":" + comment())
                        node.lines += child.lines
                    }
                }
                return node
            default:
                return sequence(depth, indent: indent)
            }
        }

        /// A random sequence at `indent`, its entries' values on the dash's line or below it.
        mutating func sequence(_ depth: Int, indent: Int) -> Node {
            let pad = String(repeating: " ", count: indent)
            var node = Node(isSequence: true)
            for _ in 0 ..< Int.random(in: 1 ... 4, using: &rng) {
                let gap = Int.random(in: 1 ... 3, using: &rng)
                let child = self.node(depth + 1, indent: indent + 1 + gap)
                if let inline = child.inline {
                    node.lines.append(pad + "-" + (Int.random(in: 0 ..< 8, using: &rng) == 0 ? "" : String(repeating: " ", count: gap) + inline) + comment())
                } else if Bool.random(using: &rng) {
                    // Compact: the first line of the value on the dash's line.
                    let first = child.lines[0].dropFirst(indent + 1 + gap)
                    node.lines.append(pad + "-" + String(repeating: " ", count: gap) + first)
                    node.lines += child.lines.dropFirst()
                } else {
                    node.lines.append(pad + "-" + comment())
                    node.lines += child.lines
                }
            }
            return node
        }

        /// A random document: a node, with blank lines, comment lines, trailing spaces, `---`, CRLF.
        mutating func document() -> String {
            clean = Bool.random(using: &rng)
            let root = node(0, indent: Int.random(in: 0 ..< 8, using: &rng) == 0 ? 2 : 0)
            var out: [String] = []
            for line in root.inline.map({ [$0] }) ?? root.lines {
                switch Int.random(in: 0 ..< 12, using: &rng) {
                case 0: out.append("")
                case 1: out.append(String(repeating: " ", count: Int.random(in: 0 ... 6, using: &rng)) + "# comment: - [x]")
                case 2: out.append("   ")
                default: break
                }
                out.append(line + (Int.random(in: 0 ..< 10, using: &rng) == 0 ? "  " : ""))
            }
            let header = pick(["", "", "", "---\n", "--- # start\n", "# heading\n", "%YAML 1.1\n---\n", "--- x\n"], ["", "", "---\n", "--- # start\n", "# heading\n"])
            let end = pick(["", "\n", "\n", "\n...\n", "\n---\nsecond\n"], ["", "\n"])
            let breaks = Int.random(in: 0 ..< 6, using: &rng) == 0 ? "\r\n" : "\n"
            return header + out.joined(separator: breaks) + end
        }
    }

    @Test("random block documents give the event parser's tree, and the block reader takes most of them")
    func randomDocuments() {
        var documents = Generator(rng: SeededGenerator(seed: 53))
        var accepted = 0
        let total = 4000
        for _ in 0 ..< total where Self.compare(documents.document()) == .accepted { accepted += 1 }
        // Half the documents use only the subset (the others hold something it leaves out, most of them).
        #expect(accepted > total / 3, "the block reader declined too many documents (\(accepted) of \(total) taken)")
    }

    @Test("damaged documents give the event parser's tree or the block reader declines them")
    func damagedDocuments() {
        var documents = Generator(rng: SeededGenerator(seed: 59))
        var rng = SeededGenerator(seed: 67)
        let specials = Array("-:?[]{},&*!|>'\"#%@ \n\r\t0xy~<\\.".utf8) + [0x00, 0x7F, 0xC2, 0x85, 0xA0, 0xE2, 0x80, 0xA8, 0xEF, 0xBB, 0xBF]
        for _ in 0 ..< 4000 {
            Self.compare(damaged(Array(documents.document().utf8), with: specials, &rng))
        }
    }

    @Test("every tree the writer writes reads back in one pass, as the event parser reads it")
    func writerOutput() throws {
        var trees = RandomTrees(rng: SeededGenerator(seed: 61))
        for _ in 0 ..< 1500 {
            let value = trees.value()
            let bytes = try DocumentWriter.data(value.store, format: .yaml)
            let outcome = Self.compare(bytes)
            // `!!binary` (data) is a tag, left to the event parser.
            let tagged = String(decoding: bytes, as: UTF8.self).contains("!!binary")
            #expect(outcome == (tagged ? .declined : .accepted), "\(String(decoding: bytes.prefix(300), as: UTF8.self).debugDescription)")
        }
        let seed = try DocumentWriter.data(TreeValue.seed.store, format: .yaml)
        #expect(Self.compare(seed) == .accepted)
    }

    /// The paths of the files below `folder`, relative to it.
    static func files(in folder: URL) -> [String] {
        var found: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isFolder) else { continue }
            found += isFolder.boolValue ? files(in: folder.appendingPathComponent(name)).map { name + "/" + $0 } : [name]
        }
        return found
    }

    @Test("the example and corpus files give the event parser's tree")
    func files() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        var accepted: [String] = []
        for folder in ["Examples", "Fuzz/Corpus/yaml", "Fuzz/Regressions/yaml"] {
            for file in Self.files(in: root.appendingPathComponent(folder)) where file.hasSuffix(".yaml") || file.hasSuffix(".yml") {
                let bytes = try [UInt8](Data(contentsOf: root.appendingPathComponent(folder).appendingPathComponent(file)))
                if Self.compare(bytes) == .accepted { accepted.append(folder + "/" + file) }
            }
        }
        // Hand-written schemas in block style (Sounds' uses flow mappings, left to the event parser).
        #expect(accepted.contains("Examples/Planets/schema.yaml") && accepted.contains("Examples/Music/schema.yaml"), "\(accepted)")
    }

    @Test("block documents the subset covers are read in one pass", arguments: [
        "a: 1", "a: 1\nb:\n  c: [] # x\n  d: {}\n", "- a\n- - b\n  - c\n-\n- k: v\n  l: w\n", "key:\n- a\n- b\nnext: 2\n",
        "- a:\n  - x\n  b: 1\n", "--- # doc\na: 'it''s'\n", "a: \"\\x41\\u00e9\\U0001F600\\N\\_\\L\\P\\/\"\n", "plain root\n", "'quoted root'",
        "[]", "{}", "a: 1\r\nb:\r\n  - x\r\n", "  a: 1\n  b: 2\n", "a :  spaced\n", "a: b # c\n", "a: b#c\n", "- a:#b\n- x", "é: 東京\n",
        "-   a: 1\n    b: 2\n", "\"k\": v\n'l': w\n", "a:\n\n  # gap\n\n  b: 1\n", "a: x:y\n", "a: -1\nb: -x\n", "a: '#'\n",
        "- \"\"\n- ''\n", "a: b #\ttab in a comment\n", "a: b  \n", "x: 2001-12-14t21:59:43.10-05:00\n",
    ])
    func accepts(_ text: String) {
        #expect(Self.compare(text) == .accepted)
    }

    @Test("what the subset leaves out is read by the event parser as before", arguments: [
        "a: &x 1\nb: *x", "base: &b {x: 1}\nuse:\n  <<: *b", "a: !!int 3", "a: |\n  text\n", "a: >\n  text\n", "a: [1, 2]", "a: {b: 1}",
        "? a\n: b", "%YAML 1.1\n---\na: 1", "a: 1\n...\n", "a\n---\nb", "a: multi\n  line\n", "a: 'multi\n  line'\n", "\u{FEFF}a: 1",
        "a:\tb", "\ta: 1", "- a\n  - b\n", "a: b\rc: d", "- x\n -y", "a: 1\na: 2", "'a': 1\na: 2", ":x: 1", "?x: 1", "a: \"\\\tb\"",
        "k" + String(repeating: "x", count: 1010) + ": v", "0x" + String(repeating: "F", count: 5000) + ": v", "<<: {a: 1}",
    ])
    func declines(_ text: String) {
        #expect(Self.compare(text) != .accepted)
    }

    @Test("bad input is still an error with its line and column", arguments: [
        ("a:\n  b: 1\n c: 2\n", 3, 2), ("a: 1\na: 2\n", 2, 1), ("a: b: c\n", 1, 5), ("- a\nb: 1\n", 2, 1), ("a:\n\tb: 1\n", 2, 2),
        ("a: 'x\n", 1, 4), ("a: \"\\q\"\n", 1, 5),
    ])
    func errors(_ text: String, _ line: Int, _ column: Int) throws {
        #expect(Self.compare(text) == .invalid)
        let error = try #require(readError(text, as: .yaml))
        #expect(error.line == line && error.column == column, "\(error)")
    }

    @Test("nesting and size limits hold on the block reader")
    func limits() {
        let deepest = String(repeating: "- ", count: YAMLReader.maxDepth) + "x\n"
        #expect(Self.compare(deepest) == .accepted)
        let deeper = String(repeating: "- ", count: YAMLReader.maxDepth + 1) + "x\n"
        #expect(Self.compare(deeper) == .invalid)
        #expect(readError(deeper, as: .yaml)?.message.contains("nesting deeper than") == true)
        let small = (0 ..< 40).map { "- \($0)" }.joined(separator: "\n")
        #expect(Self.compare(small, limit: ExpansionLimit(factor: 0)) == .accepted)
        let big = (0 ... ExpansionLimit.floorNodes).map { "- \($0)" }.joined(separator: "\n")
        #expect(Self.compare(big, limit: ExpansionLimit(factor: 0)) == .invalid)
    }
}
