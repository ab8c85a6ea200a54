import DrillDownCore
@testable import DrillDownFormats
import Foundation
import Testing

/// Inputs built to crash, hang or exhaust a reader (issue 9, items 7-13): each must read, or fail
/// with a clear located error, quickly.
@Suite("Hostile input")
struct HostileInputTests {
    /// Runs `body` and fails when it takes longer than `limit`.
    func within<T>(_ limit: Duration = .seconds(20), _ body: () throws -> T, sourceLocation: Testing.SourceLocation = #_sourceLocation) rethrows -> T {
        let clock = ContinuousClock()
        let start = clock.now
        let result = try body()
        #expect(clock.now - start < limit, "took \(clock.now - start)", sourceLocation: sourceLocation)
        return result
    }

    // MARK: 7. Integers

    @Test("YAML integers of any size and base read exactly, without overflow", arguments: [
        ("1:0:0:0:0:0:0:0:0:0:0:0", "36279705600000000000"),
        ("-1:30", "-90"),
        ("190:20:30", "685230"),
        ("0x10000000000000000", "18446744073709551616"),
        ("0b" + String(repeating: "1", count: 70), "1180591620717411303423"),
        ("0o1777777777777777777777777", "9444732965739290427391"),
        ("-0x8000000000000000", "-9223372036854775808"),
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("1_000_000_000_000_000_000_000", "1000000000000000000000"),
    ])
    func bigIntegers(_ text: String, _ decimal: String) throws {
        #expect(try read("n: \(text)\n", as: .yaml) == .object([("n", .integer(decimal))]))
        // What is read can be written back.
        #expect(try roundTrip(.object([("n", .integer(decimal))]), .yaml) == .object([("n", .integer(decimal))]))
    }

    @Test("a non-decimal YAML integer too long to convert is an error at its position")
    func tooLongInteger() throws {
        let error = try #require(readError("a: 1\nb: 0x" + String(repeating: "F", count: 5_000) + "\n", as: .yaml))
        #expect(error.line == 2 && error.column == 4)
        #expect(error.message.hasPrefix("invalid integer '0xFFFF"))
    }

    // MARK: 8. Depth

    @Test("aliases chained 18,000 deep are refused at the 10,000-level limit, not a stack overflow")
    func deepAliasChain() throws {
        var text = "a0: &a0 [x]\n"
        for i in 1 ..< 18_000 { text += "a\(i): &a\(i) [*a\(i - 1)]\n" }
        let error = try #require(within { readError(text, as: .yaml, file: "deep.yaml") })
        #expect(error.message == "aliases nest deeper than 10000 levels")
        #expect(error.line == 10_001, "\(error)")
    }

    @Test("YAML nests as deep as the other readers allow, and no deeper")
    func yamlDepthLimit() throws {
        let fine = String(repeating: "[", count: 9_999) + String(repeating: "]", count: 9_999)
        #expect(try within { try DocumentReader.read(bytes: Array(fine.utf8), file: "f", format: .yaml).tree.maxDepth() } >= 9_998)
        let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        let error = try #require(within { readError(deep, as: .yaml) })
        #expect(error.message == "nesting deeper than 10000 levels")
        #expect(error.line == 1 && error.column == 10_001)
    }

    // MARK: 9. Merge keys and alias keys

    @Test("merge keys listing the same mapping many times, nested, take linear time")
    func mergeKeyFanOut() throws {
        var text = "a0: &a0 {k0: 0}\n"
        for i in 1 ..< 12 {
            text += "a\(i): &a\(i) {k\(i): \(i), <<: [" + Array(repeating: "*a\(i - 1)", count: 12).joined(separator: ", ") + "]}\n"
        }
        let tree = try within { try read(text, as: .yaml) }
        guard case .object(let members) = tree, case .object(let last) = members[11].1 else {
            Issue.record("not an object: \(tree)")
            return
        }
        #expect(last.map(\.0) == ["k11"] + (0 ..< 11).reversed().map { "k\($0)" })
    }

    @Test("an alias of a collection used as a key is refused without hashing it")
    func aliasKeys() throws {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x]\n"
        for i in 1 ..< 6 { text += "a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 8).joined(separator: ", ") + "]\n" }
        text += "? *a5\n: v\n"
        let error = try #require(within { readError(text, as: .yaml) })
        #expect(error.message == "mapping keys must be scalars; found a mapping or sequence used as a key")
        #expect(error.line == 7 && error.column == 3)
        // An alias of a scalar is a fine key.
        #expect(try read("k: &k name\n? *k\n: v\n", as: .yaml) == .object([("k", .string("name")), ("name", .string("v"))]))
    }

    // MARK: 10. Amplification

    @Test("YAML aliases that copy a long string into a huge text are stopped by the byte budget")
    func yamlTextAmplification() throws {
        var text = "s: &s " + String(repeating: "x", count: 4_000) + "\nl0: &l0 [*s, *s, *s, *s, *s, *s, *s, *s, *s, *s]\n"
        for i in 1 ..< 5 { text += "l\(i): &l\(i) [" + Array(repeating: "*l\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let error = try #require(within { readError(text, as: .yaml) })
        #expect(error.message.hasPrefix("aliases expand to more than 67108864 bytes of text"), "\(error)")
        #expect(error.message.contains("--expansion-limit"))
        #expect(error.line == 6)
    }

    @Test("YAML alias bombs stop at the node budget")
    func yamlNodeAmplification() throws {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1 ..< 10 { text += "a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
        let error = try #require(within { readError(text, as: .yaml) })
        #expect(error.message.hasPrefix("aliases expand to more than 1000000 nodes"), "\(error)")
    }

    /// Object 0-4: arrays of ten references to the next; object 5: a 1,000-byte string.
    static let sharedStrings: [UInt8] = BinaryPlist.make(
        objects: (1 ... 5).map { [0xAA] + [UInt8](repeating: UInt8($0), count: 10) } + [[0x5F, 0x11, 0x03, 0xE8] + [UInt8](repeating: 0x78, count: 1_000)])

    @Test("binary property lists sharing a string 100,000 times are stopped by the byte budget")
    func binaryTextAmplification() throws {
        #expect(Self.sharedStrings.count < 1_200)
        let error = try #require(within { readError(bytes: Self.sharedStrings, as: .plistBinary) })
        #expect(error.message.hasPrefix("shared references expand to more than 67108864 bytes of text"), "\(error)")
        let generous = ExpansionLimit(factor: 1_000_000)
        #expect(try DocumentReader.read(bytes: Self.sharedStrings, file: "f", format: .plistBinary, expansionLimit: generous).tree.count == 111_111)
    }

    @Test("binary property lists sharing containers stop at the node budget")
    func binaryNodeAmplification() throws {
        let objects = (1 ... 8).map { [0xAA] + [UInt8](repeating: UInt8($0), count: 10) } + [[0x09]]
        let error = try #require(within { readError(bytes: BinaryPlist.make(objects: objects), as: .plistBinary) })
        #expect(error.message.hasPrefix("shared references expand to more than 1000000 nodes"), "\(error)")
    }

    // MARK: 12. Dates

    static func date(_ seconds: Double) -> [UInt8] {
        BinaryPlist.make(objects: [[0x33] + BinaryPlist.bigEndian(seconds.bitPattern)])
    }

    @Test("binary dates outside the years 0001-9999, or not a number, are refused at read time", arguments: [
        3e11, -7e10, .nan, .infinity, 1e300,
    ])
    func unwritableDates(_ seconds: Double) throws {
        let error = try #require(readError(bytes: Self.date(seconds), as: .plistBinary))
        #expect(error.message.hasSuffix("is outside the years 0001 to 9999 that dates can be written in"), "\(error)")
    }

    @Test("binary dates at the edges of the writable range read and write back in every format", arguments: [
        (PropertyListDate.writableRange.lowerBound, "0001-01-01T00:00:00Z"),
        (PropertyListDate.writableRange.upperBound, "9999-12-31T23:59:59.999Z"),
        (0, "2001-01-01T00:00:00Z"),
    ])
    func edgeDates(_ seconds: Double, _ text: String) throws {
        let value = try read(bytes: Self.date(seconds), as: .plistBinary)
        #expect(value == .scalar(.date, text))
        for format in [DocumentFormat.plistBinary, .plistXML, .yaml] { #expect(try roundTrip(value, format) == value) }
    }

    // MARK: 11. Writers

    @Test("YAML strings with non-printable and special code points read back equal", arguments: [
        "\u{FFFE}", "\u{FFFF}", "a\u{FFFF}b", "\u{FEFF}lead", "mid\u{FEFF}", "\u{1}\u{7F}\u{85}\u{9F}", "\u{2028}\u{2029}", "\u{EFBF}",
        "\u{FFFD}", "\u{10FFFF}", "\r\n", "\u{FEFF}",
    ])
    func yamlNonPrintables(_ text: String) throws {
        let value = TreeValue.object([(text, .string(text)), ("list", .array([.string(text)]))])
        #expect(try roundTrip(value, .yaml) == value)
        #expect(try roundTrip(.string(text), .yaml) == .string(text))
    }

    @Test("YAML reals are written as YAML 1.1 floats", arguments: [
        ("1e5", "1.0e+5"), ("1E-3", "1.0e-3"), ("2.5e10", "2.5e+10"), ("-0", "-0.0"), ("3", "3.0"), ("1.5", "1.5"), ("1e-05", "1.0e-05"),
    ])
    func yamlReals(_ real: String, _ written: String) throws {
        let bytes = try DocumentWriter.data(TreeValue.array([.real(real)]).store, format: .yaml)
        #expect(String(decoding: bytes, as: UTF8.self) == "- \(written)\n")
        #expect(try read(bytes: bytes, as: .yaml) == .array([.real(real)]))
    }

    @Test("XML property lists refuse characters XML 1.0 cannot hold, naming the TreePath", arguments: [
        ("\u{1}", "U+0001"), ("a\u{1F}", "U+001F"), ("\u{FFFE}", "U+FFFE"), ("x\u{FFFF}", "U+FFFF"),
    ])
    func xmlUnwritable(_ text: String, _ code: String) throws {
        let value = TreeValue.object([("Rows", .array([.string("fine"), .string(text)]))])
        let error = #expect(throws: FormatError.self) { try DocumentWriter.data(value.store, format: .plistXML) }
        #expect(error?.message == "XML property lists cannot hold \(code) (XML 1.0 has no such character, not even as a reference); the string at TreePath 0.1 (Rows/1) holds it")
        let key = #expect(throws: FormatError.self) { try DocumentWriter.data(TreeValue.object([(text, .null)]).store, format: .plistXML) }
        #expect(key?.message.hasSuffix("the key at TreePath 0 (\(text)) holds it") == true)
    }

    @Test("XML property lists keep carriage returns and tabs")
    func xmlCarriageReturn() throws {
        let value = TreeValue.object([("a\r\nb", .string("c\rd\te\n"))])
        #expect(try roundTrip(value, .plistXML) == value)
    }

    // MARK: 13. Detection and messages

    @Test("a file whose extension names a format is parsed as that format", arguments: [
        ("{\"a\" = \"b\";}", "data.json", DocumentFormat.json),
        ("{a = b;}", "data.JSON", .json),
        ("a: 1", "data.json", .json),
        ("{\"a\": 1}", "data.yaml", .yaml),
        ("<plist version=\"1.0\"><string>x</string></plist>", "data.strings", .plistXML),
        ("{ a = b; }", "data.plist", .plistOpenStep),
        ("{ a = b; }", "data.txt", .plistOpenStep),
        ("{\"a\": 1}", "data", .json),
    ])
    func extensionDecides(_ text: String, _ file: String, _ format: DocumentFormat) {
        #expect(DocumentFormat.detect(Array(text.utf8), fileExtension: DocumentReader.fileExtension(of: file)) == format)
    }

    @Test("OpenStep text in a .json file is a JSON error")
    func openStepInJSON() throws {
        let error = try #require(readError("{\"a\" = \"b\";}", file: "data.json"))
        #expect(error.description == "data.json:1:6: error: expected ':' after object key, found '='", "\(error)")
    }

    @Test("a short \\u escape says what it found", arguments: [
        ([0x5B, 0x22, 0x5C, 0x75, 0xE5, 0x22, 0x5D], "expected 4 hex digits after \\u, found byte 0xE5"),
        (Array(#"["\u12"]"#.utf8), "expected 4 hex digits after \\u, found '\"'"),
        (Array(#"["\u12"#.utf8), "expected 4 hex digits after \\u, found end of input"),
    ] as [([UInt8], String)])
    func shortUnicodeEscape(_ bytes: [UInt8], _ message: String) throws {
        let error = try #require(readError(bytes: bytes, as: .json))
        #expect(error.message == message)
    }
}
