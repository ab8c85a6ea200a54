import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

@Suite("Property lists")
struct PropertyListTests {
    static let xml = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<!-- a comment -->
        \t<key>s</key>
        \t<string>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos; &#233;&#x6771;</string>
        \t<key>i</key>
        \t<integer>-42</integer>
        \t<key>r</key>
        \t<real>2.5</real>
        \t<key>t</key>
        \t<true/>
        \t<key>f</key>
        \t<false/>
        \t<key>d</key>
        \t<date>2024-02-29T12:34:56Z</date>
        \t<key>b</key>
        \t<data>
        \tAAEC
        \tAwQ=
        \t</data>
        \t<key>c</key>
        \t<string><![CDATA[<raw> & stuff]]></string>
        \t<key>e</key>
        \t<string/>
        \t<key>a</key>
        \t<array>
        \t\t<dict/>
        \t\t<array/>
        \t</array>
        </dict>
        </plist>
        """

    static let xmlValue = TreeValue.object([
        ("s", .string("a <b> & \"c\" 'd' é東")), ("i", .integer("-42")), ("r", .real("2.5")), ("t", .bool(true)), ("f", .bool(false)),
        ("d", .scalar(.date, "2024-02-29T12:34:56Z")), ("b", .scalar(.data, "AAECAwQ=")), ("c", .string("<raw> & stuff")),
        ("e", .string("")), ("a", .array([.object([]), .array([])])),
    ])

    @Test("XML: reads every element, entity, CDATA and comment")
    func xmlElements() throws {
        let value = try read(Self.xml, as: .plistXML)
        #expect(value.difference(from: Self.xmlValue) == nil)
    }

    @Test("XML: agrees with Foundation's PropertyListSerialization")
    func xmlMatchesFoundation() throws {
        let plist: [String: Any] = ["Rows": [["Title": "Item 1", "n": 3, "x": 1.25, "ok": true]], "name": "é & <x>"]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
        let value = try read(bytes: Array(data), file: "f.plist")
        #expect(value == .object([
            ("Rows", .array([.object([("Title", .string("Item 1")), ("n", .integer("3")), ("ok", .bool(true)), ("x", .real("1.25"))])])),
            ("name", .string("é & <x>")),
        ]) || value == .object([
            ("name", .string("é & <x>")),
            ("Rows", .array([.object([("Title", .string("Item 1")), ("n", .integer("3")), ("ok", .bool(true)), ("x", .real("1.25"))])])),
        ]) || TreeValue.sortedKeys(value) == TreeValue.sortedKeys(.object([
            ("Rows", .array([.object([("Title", .string("Item 1")), ("n", .integer("3")), ("ok", .bool(true)), ("x", .real("1.25"))])])),
            ("name", .string("é & <x>")),
        ])))
    }

    @Test("XML: malformed property lists give line, column and what was expected", arguments: [
        ("<plist version=\"1.0\">\n<dict>\n  <key>a</key>\n  <dict>\n    <key>b</key><string>x</string>\n", 6, 1,
         "unclosed <dict> opened at 4:3; found end of input"),
        ("<plist>\n<dict>\n  <foo/>\n</dict>\n</plist>", 3, 3, "expected <key> in <dict>, found <foo/>"),
        ("<plist>\n<array>\n  <foo>1</foo>\n</array>\n</plist>", 3, 3,
         "unexpected tag <foo>; expected a value: <dict>, <array>, <string>, <integer>, <real>, <true/>, <false/>, <date> or <data>"),
        ("<plist><dict><key>a</key></dict></plist>", 1, 26, "expected a value after <key>a</key>, found </dict>"),
        ("<plist><array></dict></plist>", 1, 15, "expected </array> to close <array> opened at 1:8, found </dict>"),
        ("<plist><string>a</strin></plist>", 1, 17, "expected </string> to close <string> opened at 1:8, found </strin>"),
        ("<plist><integer>12x</integer></plist>", 1, 8, "invalid <integer> '12x'; expected a decimal integer"),
        ("<plist><date>yesterday</date></plist>", 1, 8, "invalid <date> 'yesterday'; expected an ISO 8601 date like 2001-01-01T00:00:00Z"),
        ("<plist><string>a &nbsp; b</string></plist>", 1, 18, "unknown entity &nbsp; expected &lt; &gt; &amp; &quot; &apos; or &#N;"),
        ("<plist><string>x</string></plist>\n<plist>", 2, 1, "unexpected <plist> after the end of the property list"),
        ("<plist></plist>", 1, 8, "empty <plist>; expected a value such as <dict> or <array>"),
        ("<plist><array>hello</array></plist>", 1, 15, "unexpected text 'hello' in <array>; expected a tag"),
        ("<plist><string>abc", 1, 8, "unclosed <string> opened at 1:8; found end of input"),
    ])
    func xmlMalformed(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        #expect(readError(text, as: .plistXML, file: "Data.plist") == FormatError(file: "Data.plist", line: line, column: column, message: message))
    }

    @Test("XML: invalid UTF-8 is an error at its line and column")
    func xmlInvalidUTF8() {
        let bytes = Array("<plist>\n<string>ab".utf8) + [0xFF] + Array("</string></plist>".utf8)
        let error = readError(bytes: bytes, as: .plistXML)
        #expect(error?.line == 2 && error?.column == 11)
        #expect(error?.message == "invalid UTF-8 byte 0xFF; property lists must be UTF-8")
    }

    @Test("XML: UTF-16 with a byte-order mark reads like UTF-8")
    func xmlUTF16() throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><string>é東😀</string></plist>"
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in text.utf16 { bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try read(bytes: bytes, file: "u.plist") == .string("é東😀"))
    }

    @Test("binary: reads what Foundation writes, every kind")
    func binaryFromFoundation() throws {
        let date = Date(timeIntervalSinceReferenceDate: 730_000_000.5)
        let plist: [Any] = [
            "ascii", "ünïcødé 😀", 0, 255, 65_535, 1 << 40, -7, Int64.max, 3.25, Float(0.5), true, false, date,
            Data([0, 1, 2, 250]), ["k": ["nested": [1, 2]]], [String](), [String: Any](), String(repeating: "long", count: 10),
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
        let value = try read(bytes: Array(data), file: "f.plist")
        #expect(value == .array([
            .string("ascii"), .string("ünïcødé 😀"), .integer("0"), .integer("255"), .integer("65535"), .integer("1099511627776"),
            .integer("-7"), .integer("9223372036854775807"), .real("3.25"), .real("0.5"), .bool(true), .bool(false),
            .scalar(.date, "2024-02-19T01:46:40.5Z"), .scalar(.data, "AAEC+g=="),
            .object([("k", .object([("nested", .array([.integer("1"), .integer("2")]))]))]), .array([]), .object([]),
            .string(String(repeating: "long", count: 10)),
        ]))
    }

    @Test("binary: what we write, Foundation reads back")
    func binaryToFoundation() throws {
        let value = TreeValue.object([
            ("s", .string("é東😀")), ("i", .integer("-3")), ("big", .integer("18446744073709551615")), ("r", .real("0.1")),
            ("b", .bool(true)), ("d", .scalar(.date, "2001-01-01T00:00:10Z")), ("data", .scalar(.data, "AAEC")),
            ("list", .array((0 ..< 20).map { .integer(String($0)) })), ("empty", .object([])),
        ])
        let bytes = try DocumentWriter.data(value.store, format: .plistBinary)
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        let dict = try #require(object as? [String: Any])
        #expect(dict["s"] as? String == "é東😀")
        #expect((dict["i"] as? NSNumber)?.intValue == -3)
        #expect((dict["r"] as? NSNumber)?.doubleValue == 0.1)
        #expect((dict["b"] as? NSNumber)?.boolValue == true)
        #expect((dict["d"] as? Date)?.timeIntervalSinceReferenceDate == 10)
        #expect(dict["data"] as? Data == Data([0, 1, 2]))
        #expect((dict["list"] as? [Any])?.count == 20)
        #expect((dict["empty"] as? [String: Any])?.isEmpty == true)
    }

    @Test("random trees we write as XML or binary, Foundation reads to the same values", arguments: [DocumentFormat.plistXML, .plistBinary])
    func randomTreesThroughFoundation(_ format: DocumentFormat) throws {
        var trees = RandomTrees(rng: SeededGenerator(seed: 99), allowNull: false)
        trees.allowControlCharacters = false
        for i in 0 ..< 100 {
            let value = trees.value()
            let ours = try DocumentWriter.data(value.store, format: format)
            let object = try PropertyListSerialization.propertyList(from: Data(ours), options: [], format: nil)
            let theirs = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
            let back = TreeValue.sortedKeys(try read(bytes: Array(theirs), as: .plistBinary))
            #expect(back == TreeValue.sortedKeys(value), "tree \(i): \(back.difference(from: TreeValue.sortedKeys(value)) ?? "")")
        }
    }

    @Test("XML: what we write, Foundation reads back")
    func xmlToFoundation() throws {
        let bytes = try DocumentWriter.data(TreeValue.seed.store, format: .plistXML)
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        let rows = try #require((object as? [String: Any])?["Rows"] as? [[String: Any]])
        #expect(rows.map { $0["Title"] as? String } == ["Item 1", "Item 2", "Item 3", "Item 4"])
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC"))
        #expect(text.contains("\n<dict>\n\t<key>Rows</key>\n\t<array>\n\t\t<dict>\n\t\t\t<key>Title</key>\n\t\t\t<string>Item 1</string>\n"))
    }

    @Test("binary: corrupt files are errors naming the byte offset, never crashes", arguments: BinaryCorruption.allCases)
    func binaryCorrupt(_ corruption: BinaryCorruption) throws {
        let good = try DocumentWriter.data(TreeValue.seed.store, format: .plistBinary)
        let error = try #require(readError(bytes: corruption.apply(to: good), as: .plistBinary, file: "bad.plist"))
        #expect(error.line == nil && error.column == nil)
        #expect(error.message.contains(corruption.expectedMessage), "\(error.message)")
    }

    @Test("binary: every truncation and every single-byte corruption is an error or a tree, never a crash")
    func binaryFuzz() throws {
        let good = try DocumentWriter.data(TreeValue.seed.store, format: .plistBinary)
        for length in 0 ..< good.count { expectTreeOrLocatedError(Array(good[0 ..< length]), as: .plistBinary) }
        var rng = SeededGenerator(seed: 7)
        for i in 0 ..< good.count {
            for _ in 0 ..< 4 {
                var bytes = good
                bytes[i] = UInt8.random(in: 0 ... 255, using: &rng)
                expectTreeOrLocatedError(bytes, as: .plistBinary)
            }
        }
    }

    @Test("binary: shared references expand; a reference cycle is an error")
    func binarySharedAndCycles() throws {
        // objects: 0 = array [1, 1], 1 = array [2], 2 = "x"
        let shared = BinaryPlist.make(objects: [[0xA2, 1, 1], [0xA1, 2], [0x51, 0x78]])
        #expect(try read(bytes: shared, as: .plistBinary) == .array([.array([.string("x")]), .array([.string("x")])]))
        // object 0 = array [1], 1 = array [0]
        let cycle = BinaryPlist.make(objects: [[0xA1, 1], [0xA1, 0]])
        #expect(readError(bytes: cycle, as: .plistBinary)?.message == "reference cycle: object 0 at byte offset 8 contains itself")
        // object 0 = dict {1: 2} where key 1 is an integer
        let badKey = BinaryPlist.make(objects: [[0xD1, 1, 2], [0x10, 5], [0x51, 0x78]])
        #expect(readError(bytes: badKey, as: .plistBinary)?.message == "dictionary key at byte offset 11 is not a string (marker 0x10)")
    }

    @Test("binary: null and 128-bit integers read; null cannot be written")
    func binaryNull() throws {
        #expect(try read(bytes: BinaryPlist.make(objects: [[0x00]]), as: .plistBinary) == .null)
        let minus = BinaryPlist.make(objects: [[0x14] + [UInt8](repeating: 0xFF, count: 16)])
        #expect(try read(bytes: minus, as: .plistBinary) == .integer("-1"))
        for format in [DocumentFormat.plistBinary, .plistXML, .plistOpenStep] {
            let error = #expect(throws: FormatError.self) { try DocumentWriter.data(TreeValue.object([("a", .array([.null]))]).store, format: format) }
            #expect(error?.message == "property lists have no null; the value at TreePath 0.0 (a/0) is null")
        }
    }

    @Test("OpenStep: reads dictionaries, arrays, quoted and unquoted strings, data and comments")
    func openStep() throws {
        let text = """
            // a comment
            {
                Rows = (
                    { Title = "Item 1"; /* inline */ Children = ( { Title = 'Screen A'; } ); },
                    { Title = Item2; path = a/b.c_d-e:f; },
                );
                esc = "a\\"b\\\\c\\nd\\t\\101\\U00e9";
                raw = "é東";
                blob = <0001 02ff>;
                empty = {};
                none = ();
            }
            """
        #expect(try read(text, as: .plistOpenStep) == .object([
            ("Rows", .array([
                .object([("Title", .string("Item 1")), ("Children", .array([.object([("Title", .string("Screen A"))])]))]),
                .object([("Title", .string("Item2")), ("path", .string("a/b.c_d-e:f"))]),
            ])),
            ("esc", .string("a\"b\\c\nd\tAé")), ("raw", .string("é東")), ("blob", .scalar(.data, "AAEC/w==")),
            ("empty", .object([])), ("none", .array([])),
        ]))
    }

    @Test("OpenStep: a .strings file reads as a dictionary")
    func stringsFile() throws {
        let text = "/* Greeting */\n\"hello\" = \"Bonjour\";\n\"bye\" = \"Au revoir\";\nshort;\n"
        #expect(try read(text, file: "Localizable.strings") == .object([
            ("hello", .string("Bonjour")), ("bye", .string("Au revoir")), ("short", .string("short")),
        ]))
    }

    @Test("OpenStep: Foundation reads what we write")
    func openStepToFoundation() throws {
        let bytes = try DocumentWriter.data(TreeValue.seed.store, format: .plistOpenStep)
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        let rows = try #require((object as? [String: Any])?["Rows"] as? [[String: Any]])
        #expect(rows.map { $0["Title"] as? String } == ["Item 1", "Item 2", "Item 3", "Item 4"])
    }

    @Test("OpenStep: malformed input gives line, column and what was expected", arguments: [
        ("{\n  a = b\n  c = d;\n}", 3, 3, "expected ';' after dictionary entry, found 'c'"),
        ("{ a = (1, 2 }", 1, 13, "expected ',' or ')' after array element, found '}'"),
        ("{ a = b;", 1, 9, "expected a key or '}', found end of input; expected '}' to close the dictionary opened at 1:1"),
        ("{ a b; }", 1, 5, "expected '=' after dictionary key, found 'b'"),
        ("( \"abc )", 1, 3, "unterminated string; expected '\"' before end of input"),
        ("( <0g> )", 1, 5, "expected a hex digit or '>' in data, found 'g'"),
        ("( a ) b", 1, 7, "unexpected 'b' after the top-level value; expected end of input"),
        ("{ = b; }", 1, 3, "expected a dictionary key (a string) or '}', found '='"),
        ("/* open", 1, 1, "unterminated comment; expected '*/'"),
    ])
    func openStepMalformed(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        #expect(readError(text, as: .plistOpenStep, file: "x.strings") == FormatError(file: "x.strings", line: line, column: column, message: message))
    }
}

extension TreeValue {
    /// The value with every object's members sorted by key (for comparing with unordered dictionaries).
    static func sortedKeys(_ value: TreeValue) -> TreeValue {
        switch value {
        case .object(let m): .object(m.map { ($0.0, sortedKeys($0.1)) }.sorted { $0.0 < $1.0 })
        case .array(let a): .array(a.map(sortedKeys))
        case .scalar: value
        }
    }
}

/// Hand-made binary property lists.
enum BinaryPlist {
    /// A `bplist00` with `objects` (already encoded, 1-byte refs) in order, top object 0.
    static func make(objects: [[UInt8]]) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let table = out.count
        out += offsets.map { UInt8($0) }
        out += [0, 0, 0, 0, 0, 0, 1, 1]
        out += bigEndian(UInt64(objects.count)) + bigEndian(0) + bigEndian(UInt64(table))
        return out
    }

    static func bigEndian(_ v: UInt64) -> [UInt8] { (0 ..< 8).map { UInt8(truncatingIfNeeded: v >> (56 - 8 * UInt64($0))) } }
}

/// Ways to break a valid binary property list.
enum BinaryCorruption: CaseIterable {
    case badMagic, truncatedTrailer, offsetTableOutOfRange, objectOffsetOutOfRange, referenceOutOfRange, badOffsetSize, topObjectOutOfRange

    func apply(to good: [UInt8]) -> [UInt8] {
        var bytes = good
        let trailer = bytes.count - 32
        switch self {
        case .badMagic: bytes.replaceSubrange(0 ..< 8, with: Array("bplxst00".utf8))
        case .truncatedTrailer: bytes.removeLast(20)
        case .offsetTableOutOfRange: bytes.replaceSubrange(trailer + 24 ..< trailer + 32, with: BinaryPlist.bigEndian(UInt64(bytes.count)))
        case .objectOffsetOutOfRange:
            let table = Int(bytes[trailer + 31])
            bytes[table + 1] = 0xFF
        case .referenceOutOfRange:
            bytes[9] = 0x7F
        case .badOffsetSize: bytes[trailer + 6] = 9
        case .topObjectOutOfRange: bytes.replaceSubrange(trailer + 16 ..< trailer + 24, with: BinaryPlist.bigEndian(1000))
        }
        return bytes
    }

    var expectedMessage: String {
        switch self {
        case .badMagic: "not a binary property list: expected 'bplist00' at byte offset 0"
        case .truncatedTrailer: "corrupt trailer"
        case .offsetTableOutOfRange: "does not fit before the trailer"
        case .objectOffsetOutOfRange: "outside the object area"
        case .referenceOutOfRange: "is out of range"
        case .badOffsetSize: "corrupt trailer: offset size 9"
        case .topObjectOutOfRange: "corrupt trailer: top object 1000"
        }
    }
}
