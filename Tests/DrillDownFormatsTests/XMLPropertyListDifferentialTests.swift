import DrillDownCore
@testable import DrillDownFormats
import Testing

/// The XML property-list fast path (``XMLPropertyListFastParser``) against the full parser
/// (``XMLPropertyListParser``) that reads whatever it declines: on every input the fast path
/// accepts, both build the same tree; it never accepts what the full parser rejects; and it does
/// accept the common shapes (so a fast path that declined everything would fail here).
@Suite("XML property-list fast path against the full parser")
struct XMLPropertyListDifferentialTests {
    enum Verdict { case same, declined, invalid }

    /// Compares both parsers on `bytes` (skipped when it is not UTF-8, which the reader rejects first).
    @discardableResult
    static func compare(_ bytes: [UInt8], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Verdict {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, !buffer.isEmpty, UTF8Validation.firstInvalidOffset(in: buffer) == nil else { return .invalid }
            let fast = (try? XMLPropertyListFastParser.read(buffer)) ?? nil
            var full: TreeStore?
            var failure: ParseFailure?
            var parser = XMLPropertyListParser(base: base, count: buffer.count)
            do throws(ParseFailure) { full = try parser.parse() } catch { failure = error }
            let text = String(decoding: bytes.prefix(400), as: UTF8.self).debugDescription
            switch (fast, full) {
            case (let f?, let o?):
                #expect(JSONScanDifferentialTests.dump(f) == JSONScanDifferentialTests.dump(o), "different trees for \(text)", sourceLocation: sourceLocation)
                return .same
            case (_?, nil):
                Issue.record("fast path accepted an invalid plist (\(failure?.message ?? "")) \(text)", sourceLocation: sourceLocation)
                return .invalid
            case (nil, _?):
                return .declined
            case (nil, nil):
                return .invalid
            }
        }
    }

    /// A random value in the shapes the fast path reads (`common`) or in any shape the full parser knows.
    static func value(_ depth: Int, common: Bool, _ rng: inout SeededGenerator) -> String {
        let space = common ? ["", "\n", "\n\t\t", " "] : ["", "\n", "\r\n", " <!-- c --> ", "<?pi x?>", "\t"]
        func ws() -> String { space.randomElement(using: &rng)! }
        let textPieces = common
            ? ["a", "Row 1.2", "é", "😀", "&amp;", "&lt;", "&gt;", "&quot;", "&apos;", "&#65;", "&#x1F600;", "&#0;", " ", "\n", "\"", "'", ">", "]]", "0123456789abcdef"]
            : ["a", "&amp;", "<![CDATA[<x>&]]>", "\r\n", "\r", "<!-- c -->", "&#xD800;", "&#1114112;", "&#+65;", "&bogus;", "&", "&#;", "&#x;", "é"]
        func text() -> String { (0 ..< Int.random(in: 0 ..< 6, using: &rng)).map { _ in textPieces.randomElement(using: &rng)! }.joined() }
        let integers = common ? ["0", "-1", "+7", "007", "-0", "-00", " 42 ", "\n12\n", "123456789012345678901234567890"] : ["0x1F", "-0X10", "0x", "", "1 2", "+", "1.5", "&#49;"]
        let reals = common ? ["0", "1.5", "-2.25e-3", "1E+9", " 3.0 ", "-0.0"] : [".5", "1.", "inf", "-Infinity", "nan", "1e", "x", "0x1p3", "+1"]
        let dates = ["2001-01-01T00:00:00Z", " 2024-02-29T12:34:56Z ", "1999-12-31T23:59:59Z", "2001-13-01T00:00:00Z", "yesterday", ""]
        let datas = ["", "YQ==", " SGVs\n\tbG8= ", "YQ", "!!", "AAEC\nAwQF"]
        let choices = depth > 4 ? 8 : 11
        switch Int.random(in: 0 ..< choices, using: &rng) {
        case 0: return Bool.random(using: &rng) ? "<string>\(text())</string>" : "<string/>"
        case 1: return "<integer>\(integers.randomElement(using: &rng)!)</integer>"
        case 2: return "<real>\(reals.randomElement(using: &rng)!)</real>"
        case 3: return ["<true/>", "<false/>", "<true></true>", "<false>\(ws())</false>"].randomElement(using: &rng)!
        case 4: return "<date>\(dates.randomElement(using: &rng)!)</date>"
        case 5: return Bool.random(using: &rng) ? "<data>\(datas.randomElement(using: &rng)!)</data>" : "<data/>"
        case 6: return common ? "<string attr=\"x>y\">\(text())</string >" : "<unknown/>"
        case 7: return ["<dict/>", "<array/>", "<array></array>", "<dict>\(ws())</dict>"].randomElement(using: &rng)!
        case 8, 9:
            let items = (0 ..< Int.random(in: 0 ..< 5, using: &rng)).map { _ in ws() + value(depth + 1, common: common, &rng) }
            return "<array>" + items.joined() + ws() + "</array>"
        default:
            // A key may appear once per dictionary: keys after the first end with `#` and their
            // position (no decoded text holds a `#`).
            let members = (0 ..< Int.random(in: 0 ..< 5, using: &rng)).map { i in
                let suffix = i > 0 ? "#\(i)" : ""
                return ws() + (Bool.random(using: &rng) ? "<key>\(text())\(suffix)</key>" : i > 0 ? "<key>\(suffix)</key>" : "<key/>") + ws()
                    + value(depth + 1, common: common, &rng)
            }
            return "<dict>" + members.joined() + ws() + "</dict>"
        }
    }

    static func document(_ body: String, _ rng: inout SeededGenerator) -> String {
        let head = ["", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", "\u{FEFF}<?xml version=\"1.0\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n"]
            .randomElement(using: &rng)!
        return Bool.random(using: &rng) ? head + "<plist version=\"1.0\">\n" + body + "\n</plist>\n" : head + body + "\n"
    }

    @Test("tag names as words")
    func names() {
        func word(_ s: String) -> UInt64 { s.utf8.enumerated().reduce(0) { $0 | UInt64($1.element) << UInt64(8 * $1.offset) } }
        typealias N = XMLPropertyListFastParser.Name
        let expected: [(String, UInt64)] = [("dict", N.dict), ("array", N.array), ("string", N.string), ("integer", N.integer), ("real", N.real),
                                            ("true", N.true), ("false", N.false), ("date", N.date), ("data", N.data), ("key", N.key), ("plist", N.plist)]
        for (name, value) in expected { #expect(word(name) == value, "\(name)") }
    }

    @Test("common documents: the fast path reads them all, with the same tree")
    func commonDocuments() {
        var rng = SeededGenerator(seed: 31)
        for _ in 0 ..< 2000 {
            let text = Self.document(Self.value(0, common: true, &rng), &rng)
            let verdict = Self.compare(Array(text.utf8))
            // Dates and data may be invalid on purpose; everything else must take the fast path.
            if !text.contains("<date>") && !text.contains("<data>") {
                #expect(verdict == .same, "declined \(text.debugDescription)")
            }
        }
    }

    @Test("documents with every construct give the same tree, or the fast path declines")
    func anyDocuments() {
        var rng = SeededGenerator(seed: 37)
        for _ in 0 ..< 3000 {
            Self.compare(Array(Self.document(Self.value(0, common: Bool.random(using: &rng), &rng), &rng).utf8))
        }
    }

    @Test("damaged documents: never accepted by the fast path alone")
    func damagedDocuments() {
        var rng = SeededGenerator(seed: 41)
        let specials = Array("<>/&;!?-[]\"' \n\r\tx0#".utf8)
        for _ in 0 ..< 6000 {
            let bytes = damaged(Array(Self.document(Self.value(0, common: true, &rng), &rng).utf8), with: specials, &rng)
            Self.compare(bytes)
        }
    }

    @Test("edges: bare values, stray text, long names, short input ends, nesting at the limit")
    func edges() {
        let cases = ["<true/>", "<plist/>", "<plist></plist>", "<plist><true/></plist><x/>", "<plist><true/>", "</plist>", "<key>a</key>",
                     "<string>a</strin>", "<string>a</stringx>", "<integer>1</integer >", "<integer>1</integer x='1'>", "<stringlongname>a</stringlongname>",
                     "<array><true/>x</array>", "<dict><string>a</string></dict>", "<dict><key>a</key></dict>", "<s", "<", "<!-- x", "<?x", "<!DOCTYPE [",
                     "<!x>", "<string>&amp</string>", "<string>&#1234567890123;</string>", "<data>YQ==</data><!-- tail -->", "<true/> <?pi?> ",
                     "<array><dict/><array/></array>", "<real>1e5</real>", "<integer>9</integer>", "<dict><key>k</key><dict/></dict>"]
        for text in cases { Self.compare(Array(text.utf8)) }
        #expect(Self.compare(Array("<array><dict/><array/></array>".utf8)) == .same)
        let limit = XMLPropertyListReader.maxDepth
        for depth in [limit - 1, limit, limit + 1] {
            let text = String(repeating: "<array>", count: depth) + String(repeating: "</array>", count: depth)
            #expect(Self.compare(Array(text.utf8)) == (depth <= limit ? .same : .invalid))
        }
    }
}
