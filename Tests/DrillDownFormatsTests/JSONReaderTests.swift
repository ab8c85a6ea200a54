import DrillDownCore
@testable import DrillDownFormats
import Testing

@Suite("JSON reader")
struct JSONReaderTests {
    @Test("reads objects, arrays and every scalar kind in document order")
    func scalarsAndContainers() throws {
        let value = try read(#"{"s": "hi", "i": -12, "r": 1.5e3, "t": true, "f": false, "n": null, "a": [1, [], {}]}"#, as: .json)
        #expect(value == .object([
            ("s", .string("hi")), ("i", .integer("-12")), ("r", .real("1.5e3")), ("t", .bool(true)), ("f", .bool(false)),
            ("n", .null), ("a", .array([.integer("1"), .array([]), .object([])])),
        ]))
    }

    @Test("keeps numbers as their literal text")
    func numbersKeepText() throws {
        #expect(try read("[0, -0, 1.50, 1E+2, 123456789012345678901234567890]", as: .json) == .array([
            .integer("0"), .integer("-0"), .real("1.50"), .real("1E+2"), .integer("123456789012345678901234567890"),
        ]))
        let tree = try DocumentReader.read(bytes: Array("[1.50]".utf8), file: "x.json").tree
        #expect(tree.value(of: tree.children(of: tree.root)[0]) == Scalar(.real, "1.50"))
    }

    @Test("decodes every escape, including surrogate pairs, to UTF-8")
    func escapes() throws {
        let value = try read(#"["\"\\\/\b\f\n\r\t", "\u00e9\u6771\uD83D\uDE00", "plain é 😀"]"#, as: .json)
        #expect(value == .array([.string("\"\\/\u{8}\u{c}\n\r\t"), .string("é東😀"), .string("plain é 😀")]))
    }

    @Test("a scalar document is a tree of one leaf")
    func scalarDocument() throws {
        let tree = try DocumentReader.read(bytes: Array(" 42 ".utf8), file: "n.json").tree
        #expect(tree.count == 1)
        #expect(tree.value(of: tree.root) == Scalar(.integer, "42"))
        #expect(try read(#""x""#, as: .json) == .string("x"))
    }

    @Test("object keys become titles; a key repeated in one object is refused (see DuplicateKeyTests)")
    func keys() throws {
        let tree = try DocumentReader.read(bytes: Array(#"{"a": 1, "A": 2, "": 3}"#.utf8), file: "k.json").tree
        #expect(tree.children(of: tree.root).map { tree.title(of: $0) } == ["a", "A", ""])
        let error = readError(#"{"a": 1, "a": 2, "": 3}"#, file: "k.json")
        #expect(error?.description == "k.json:1:10: error: duplicate key 'a' in object (first at 1:2); a key may appear once per object")
    }

    @Test("a long string with many escapes and multi-byte characters reads exactly")
    func longString() throws {
        let text = String(repeating: "abc\\\"é東😀\\n", count: 500)
        let expected = String(repeating: "abc\"é東😀\n", count: 500)
        #expect(try read("\"\(text)\"", as: .json) == .string(expected))
    }

    @Test("malformed JSON gives the line, column and what was expected", arguments: [
        ("{\"a\": 1,\n \"b\": 2\n ]", 3, 2, "expected ',' or '}' after object member, found ']'"),
        ("[1, 2,]", 1, 7, "expected a value, found ']' (trailing commas are not allowed)"),
        ("{\"a\": 1,}", 1, 9, "expected '\"' to begin an object key, found '}' (trailing commas are not allowed)"),
        ("{\"a\": [1, 2", 1, 12, "expected ',' or ']' after array element, found end of input; expected ']' to close the array opened at 1:7"),
        ("{\"a\"", 1, 5, "expected ':' after object key, found end of input"),
        ("[1] x", 1, 5, "unexpected 'x' after the top-level value; expected end of input"),
        ("", 1, 1, "empty document; expected a JSON value"),
        ("  \n ", 2, 2, "empty document; expected a JSON value"),
        ("[01]", 1, 2, "leading zeros are not allowed in numbers"),
        ("[1.]", 1, 4, "expected a digit after '.' in number, found ']'"),
        ("[NaN]", 1, 2, "expected a value, found 'N'"),
        ("[tru]", 1, 2, "invalid literal; expected 'true' (or a string, number, object or array)"),
        ("// c\n[]", 1, 1, "expected a value, found '/'"),
        ("[\"a\nb\"]", 1, 4, "unescaped line break in string; expected '\"' to close the string opened at 1:2"),
        ("[\"ab", 1, 2, "unterminated string; expected '\"' before end of input"),
        ("[\"\\x\"]", 1, 3, "invalid escape \\x; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX"),
        ("[\"\\uD800\"]", 1, 3, "unpaired surrogate \\uD800; expected a low surrogate \\uDC00-\\uDFFF to follow"),
        ("{'a': 1}", 1, 2, "expected '\"' to begin an object key, found '''"),
    ])
    func malformed(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        let error = readError(text, as: .json, file: "data.json")
        #expect(error == FormatError(file: "data.json", line: line, column: column, message: message))
    }

    @Test("invalid UTF-8 inside a string is an error at its line and column")
    func invalidUTF8() {
        var bytes = Array("{\n  \"k\": \"ab".utf8)
        bytes += [0xC3, 0x28]
        bytes += Array("\"\n}".utf8)
        let error = readError(bytes: bytes, as: .json, file: "bad.json")
        #expect(error?.line == 2)
        #expect(error?.column == 11)
        #expect(error?.message == "invalid UTF-8 byte 0xC3 in string")
        #expect(readError(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22], as: .json) != nil, "encoded surrogates are not UTF-8")
        #expect(readError(bytes: [0x22, 0xC0, 0xAF, 0x22], as: .json) != nil, "overlong encodings are not UTF-8")
    }

    @Test("columns count characters, not bytes")
    func columnsInCharacters() {
        let error = readError("[\"é東😀\" x]", as: .json)
        #expect(error?.column == 8)
    }

    @Test("nesting beyond the depth limit is an error, not a crash")
    func depthLimit() throws {
        let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        #expect(readError(deep, as: .json)?.message == "nesting deeper than 10000 levels")
        let ok = String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)
        let tree = try DocumentReader.read(bytes: Array(ok.utf8), file: "deep.json").tree
        #expect(tree.count == 5_000)
        #expect(tree.maxDepth() == 4_999)
    }

    @Test("error descriptions read like compiler diagnostics")
    func description() {
        #expect(FormatError(file: "data.json", line: 3, column: 14, message: "expected x").description == "data.json:3:14: error: expected x")
        #expect(FormatError(file: "a.plist", message: "corrupt").description == "a.plist: error: corrupt")
    }
}
