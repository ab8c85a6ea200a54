import DrillDownCore
@testable import DrillDownFormats
import Testing

/// The one-pass ``YAMLStreamReader`` against ``YAMLComposer``, the path it replaces for
/// documents without aliases or merge keys: on every input the stream reader builds the same
/// tree as the composer, or declines and leaves the composer to read it (or report its error).
@Suite("YAML event stream against the composer")
struct YAMLStreamDifferentialTests {
    enum Outcome { case accepted, declined, invalid }

    /// Compares both readers on `text`.
    @discardableResult
    static func compare(_ text: String, limit: ExpansionLimit = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Outcome {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            let fast = (try? YAMLStreamReader.read(buffer, limit: limit)) ?? nil
            var composed: TreeStore?
            var failure: ParseFailure?
            var composer = YAMLComposer(inputBytes: buffer.count, limit: limit)
            do throws(ParseFailure) {
                let root = try composer.compose(buffer)
                composed = composer.build(root)
            } catch {
                failure = error
            }
            let shown = String(text.prefix(300)).debugDescription
            switch (fast, composed) {
            case (let f?, let c?):
                #expect(JSONScanDifferentialTests.dump(f) == JSONScanDifferentialTests.dump(c), "different trees for \(shown)", sourceLocation: sourceLocation)
                return .accepted
            case (_?, nil):
                Issue.record("stream reader accepted what the composer refuses (\(failure?.message ?? "")): \(shown)", sourceLocation: sourceLocation)
                return .invalid
            case (nil, _?):
                return .declined
            case (nil, nil):
                return .invalid
            }
        }
    }

    static let scalars = [
        "plain", "two words", "'single'", "\"double \\u00e9 \\L \\x41\"", "42", "-17", "0x1F", "0o17", "017", "0b101", "1_000", "1:30",
        "190:20:30", "2.5", "1e3", "-.inf", ".NaN", "yes", "No", "on", "OFF", "y", "n", "true", "False", "~", "null", "", "2001-12-14",
        "2001-12-14t21:59:43.10-05:00", "!!str 42", "!!int \"7\"", "!!float 3", "!!bool yes", "!!null ''", "!!binary aGVsbG8=",
        "!!timestamp 2002-12-14", "!custom value", "! 12", "é😀", "'<<'", "\"<<\"", "|\n  block\n  text\n", ">-\n  folded\n  text\n",
        "&a anchored", "!!int 0xZZ", "!!float abc", "!!binary ***", "0x", "<<", "- not a seq in flow",
    ]

    /// A random block- or flow-style document of `depth` levels at `indent`.
    static func value(_ depth: Int, indent: Int, _ rng: inout SeededGenerator) -> String {
        let pad = String(repeating: " ", count: indent)
        switch Int.random(in: 0 ..< (depth > 4 ? 2 : 6), using: &rng) {
        case 0, 1:
            let s = scalars.randomElement(using: &rng)!
            return s.contains("\n") ? s.replacingAll("\n  ", with: "\n" + pad + "  ") : s
        case 2:
            let items = (0 ..< Int.random(in: 0 ..< 4, using: &rng)).map { _ in flow(depth + 1, &rng) }
            return (Bool.random(using: &rng) ? "&s " : "") + "[" + items.joined(separator: ", ") + "]"
        case 3:
            let count = Int.random(in: 1 ..< 5, using: &rng)
            return "\n" + (0 ..< count).map { _ in pad + "- " + value(depth + 1, indent: indent + 2, &rng).trimmingLeadingNewline(pad: pad + "  ") }
                .joined(separator: "\n")
        default:
            let keys = ["a", "b", "key", "'a'", "\"quoted\"", "1", "0x1", "yes", "~", "é", "<<", "? complex", "!!str k", "&k a"]
            let count = Int.random(in: 1 ..< 5, using: &rng)
            return "\n" + (0 ..< count).map { _ in
                let key = keys.randomElement(using: &rng)!
                if key == "<<" { return pad + "<<: " + ["{x: 1}", "[{y: 2}]", "*s", "3"].randomElement(using: &rng)! }
                return pad + key + ": " + value(depth + 1, indent: indent + 2, &rng)
            }.joined(separator: "\n")
        }
    }

    /// A random flow-style value.
    static func flow(_ depth: Int, _ rng: inout SeededGenerator) -> String {
        switch Int.random(in: 0 ..< (depth > 4 ? 1 : 4), using: &rng) {
        case 0:
            return ["a", "1", "'x'", "\"y\"", "0x10", "true", "~", "2.5", "!!str 3", "*s", "&t v", "''"].randomElement(using: &rng)!
        case 1:
            return "[" + (0 ..< Int.random(in: 0 ..< 4, using: &rng)).map { _ in flow(depth + 1, &rng) }.joined(separator: ", ") + "]"
        default:
            return "{" + (0 ..< Int.random(in: 0 ..< 4, using: &rng)).map { _ in
                ["a", "b", "'a'", "1", "<<", "[k]"].randomElement(using: &rng)! + ": " + flow(depth + 1, &rng)
            }.joined(separator: ", ") + "}"
        }
    }

    @Test("random documents give the same tree, and the stream reader takes most of them")
    func randomDocuments() {
        var rng = SeededGenerator(seed: 31)
        var accepted = 0
        for _ in 0 ..< 3000 {
            let doc = ["", "---\n", "%YAML 1.1\n---\n"].randomElement(using: &rng)! + Self.value(0, indent: 0, &rng).trimmingLeadingNewline(pad: "")
                + ["", "\n", "\n...\n", "\n---\nsecond"].randomElement(using: &rng)!
            if Self.compare(doc) == .accepted { accepted += 1 }
        }
        #expect(accepted > 600, "the stream reader declined too many documents (\(accepted) of 3000 taken)")
    }

    @Test("damaged documents give the same tree or the stream reader declines them")
    func damagedDocuments() {
        var rng = SeededGenerator(seed: 37)
        let specials = Array("-:?[]{},&*!|>'\"#%@ \n\t0xy~<".utf8) + [0x00, 0xC3, 0xFF]
        for _ in 0 ..< 2000 {
            var bytes = Array(Self.value(0, indent: 0, &rng).trimmingLeadingNewline(pad: "").utf8)
            for _ in 0 ..< Int.random(in: 1 ..< 4, using: &rng) where !bytes.isEmpty {
                let at = Int.random(in: 0 ..< bytes.count, using: &rng)
                switch Int.random(in: 0 ..< 3, using: &rng) {
                case 0: bytes[at] = specials.randomElement(using: &rng)!
                case 1: bytes.remove(at: at)
                default: bytes.insert(specials.randomElement(using: &rng)!, at: at)
                }
            }
            Self.compare(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test("every give-up case is left to the composer", arguments: [
        "a: &x 1\nb: *x", "base: &b {x: 1}\nuse:\n  <<: *b", "a: 1\na: 2", "? [a]\n: 1", "a: !!int zz", "a: [1, 2", "", "a\n---\nb",
        String(repeating: "[", count: 10_001) + String(repeating: "]", count: 10_001),
    ])
    func declines(_ text: String) {
        #expect(Self.compare(text) != .accepted)
    }

    @Test("anchors without aliases, tags, block scalars and every scalar type are read in one pass")
    func accepts() {
        let text = """
            a: &x {b: [1, 0x1F, 2.5, .inf, yes, ~, 2001-12-14t21:59:43.10-05:00, !!binary aGVsbG8=]}
            'quoted key': |
              literal
            k: !custom 12
            dup: [1, 1]
            """
        #expect(Self.compare(text) == .accepted)
    }

    @Test("plain scalars that are untyped by their bytes resolve to strings")
    func untypedByBytes() {
        let words = ["yes", "Yes", "YES", "yES", "true", "True", "TRUE", "tRUE", "on", "On", "ON", "oN", "no", "No", "NO", "nO", "false",
                     "False", "FALSE", "fALSE", "off", "Off", "OFF", "oFF", "<<", "<", "<<<", "~", "~~", "null", "Null", "NULL", "nULL",
                     "Title", "value", "y", "n", "=", "é", "Yesterday", "onward"]
        for first in UInt8(0x20) ... 0x7E {
            for sample in YAMLPlainScalarTests.samples + words {
                let text = String(decoding: [first], as: UTF8.self) + sample.dropFirst()
                for candidate in [text, sample] where !Array(candidate.utf8).withUnsafeBufferPointer({ YAMLPlainScalar.mayBeTyped($0) }) {
                    #expect(YAMLPlainScalar.resolve(candidate) == .string, "\(candidate.debugDescription)")
                }
            }
        }
    }

    @Test("decimal integers taken as written are ones the full typing keeps as written")
    func canonicalDecimals() {
        var rng = SeededGenerator(seed: 41)
        let digits = Array("0123456789".utf8)
        let samples = ["0", "7", "10", "007", "01", "12345678901234567890123", "-5", "+5", "1_0", "1:30", "1a", ""]
            + (0 ..< 500).map { _ in String(decoding: (0 ..< Int.random(in: 1 ..< 25, using: &rng)).map { _ in digits.randomElement(using: &rng)! }, as: UTF8.self) }
        for text in samples {
            let fast = Array(text.utf8).withUnsafeBufferPointer { YAMLScalar.isCanonicalDecimal($0) }
            let full = YAMLPlainScalar.resolve(text) == .int && YAMLNumbers.integer(text) == text
            #expect(!fast || full, "\(text.debugDescription) taken as written but typed otherwise")
        }
    }

    @Test("a document past the expansion limit is left to the composer, which refuses it")
    func limits() {
        let text = "[" + String(repeating: "1,", count: 40) + "1]"
        #expect(Self.compare(text, limit: ExpansionLimit(factor: 0)) == .accepted)
        let big = "[" + String(repeating: "1,", count: ExpansionLimit.floorNodes) + "1]"
        #expect(Self.compare(big, limit: ExpansionLimit(factor: 0)) == .invalid)
    }
}

extension String {
    /// Drops a leading newline, and with it the first line's indentation `pad` (block values start on their own line).
    fileprivate func trimmingLeadingNewline(pad: String) -> String {
        guard hasPrefix("\n") else { return self }
        let rest = dropFirst()
        return String(rest.hasPrefix(pad) ? rest.dropFirst(pad.count) : rest)
    }

    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
