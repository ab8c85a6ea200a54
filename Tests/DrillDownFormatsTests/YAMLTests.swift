import DrillDownCore
@testable import DrillDownFormats
import Testing

@Suite("YAML")
struct YAMLTests {
    @Test("resolves scalars to kinds by their YAML 1.1 tags")
    func kinds() throws {
        let text = """
            s: hello world
            quoted: "42"
            single: 'true'
            i: 42
            hex: 0x1F
            octal: 0o17
            under: 1_000
            r: 2.5
            exp: 1e3
            inf: .inf
            nan: .NaN
            t: yes
            f: Off
            n: ~
            empty:
            d: 2001-12-14T21:59:43Z
            day: 2002-12-14
            bin: !!binary AAEC
            forced: !!str 12
            """
        #expect(try read(text, as: .yaml) == .object([
            ("s", .string("hello world")), ("quoted", .string("42")), ("single", .string("true")), ("i", .integer("42")),
            ("hex", .integer("31")), ("octal", .integer("15")), ("under", .integer("1000")), ("r", .real("2.5")),
            ("exp", .real("1e3")), ("inf", .real("inf")), ("nan", .scalar(.real, "nan")), ("t", .bool(true)), ("f", .bool(false)),
            ("n", .null), ("empty", .null), ("d", .scalar(.date, "2001-12-14T21:59:43Z")), ("day", .string("2002-12-14")),
            ("bin", .scalar(.data, "AAEC")), ("forced", .string("12")),
        ]))
    }

    @Test("reads block and flow collections in document order")
    func collections() throws {
        let text = """
            Rows:
              - Title: Item 1
                Children: [{Title: Screen A}]
              - {Title: Item 2}
            list:
            - - a
              - b
            - []
            """
        #expect(try read(text, as: .yaml) == .object([
            ("Rows", .array([
                .object([("Title", .string("Item 1")), ("Children", .array([.object([("Title", .string("Screen A"))])]))]),
                .object([("Title", .string("Item 2"))]),
            ])),
            ("list", .array([.array([.string("a"), .string("b")]), .array([])])),
        ]))
    }

    @Test("applies merge keys and expands aliases")
    func mergeAndAliases() throws {
        let text = """
            base: &base {a: 1, b: 2}
            derived:
              <<: *base
              b: 3
            copy: *base
            """
        #expect(try read(text, as: .yaml) == .object([
            ("base", .object([("a", .integer("1")), ("b", .integer("2"))])),
            ("derived", .object([("b", .integer("3")), ("a", .integer("1"))])),
            ("copy", .object([("a", .integer("1")), ("b", .integer("2"))])),
        ]))
    }

    @Test("bad indentation is an error with its line and column")
    func badIndentation() throws {
        let error = try #require(readError("a:\n  b: 1\n c: 2\n", as: .yaml, file: "s.yaml"))
        #expect(error.file == "s.yaml")
        #expect(error.line == 3 && error.column == 2)
        #expect(error.message.hasPrefix("expected a key of the block mapping"))
    }

    @Test("malformed YAML gives line, column and the problem", arguments: [
        ("a: [1, 2\n", 2, 1, "the flow collection is not closed: expected ']' or '}'"),
        ("a: 1\n---\nb: 2\n", 2, 1, "a second YAML document starts here; expected a single document"),
        ("a: 1\na: 2\n", 2, 1, "duplicate key 'a' in mapping"),
        ("a: *nope\n", 1, 4, "found undefined alias"),
        ("? [1]\n: x\n", 1, 3, "mapping keys must be scalars; found a mapping or sequence used as a key"),
    ])
    func malformed(_ text: String, _ line: Int, _ column: Int, _ message: String) throws {
        let error = try #require(readError(text, as: .yaml, file: "s.yaml"))
        #expect(error.line == line && error.column == column, "\(error)")
        #expect(error.message.hasPrefix(message), "\(error)")
    }

    @Test("YAML 1.2 syntax that libyaml refused or misread: flow keys, anchors with ':', tabs as separation, directives")
    func yaml12() throws {
        #expect(try read("%YAML 1.2\n%FOO bar\n---\n{ ?foo: bar, \"a\":b }\n", as: .yaml) == .object([("?foo", .string("bar")), ("a", .string("b"))]))
        #expect(try read("&a: key: &b:c value\nother: *b:c\n", as: .yaml) == .object([("key", .string("value")), ("other", .string("value"))]))
        #expect(try read("-\tx\n- y:\t1\n", as: .yaml) == .array([.string("x"), .object([("y", .integer("1"))])]))
        #expect(try read("{ multi\n  line: value }\n", as: .yaml) == .object([("multi line", .string("value"))]))
        #expect(try read("--- >\nline1\n# no comment\nline3\n", as: .yaml) == .string("line1 # no comment line3\n"))
        // A closing bracket may stand at its key's column, as libyaml read it (the specification wants it indented).
        #expect(try read("key: [\n  1, 2\n]\nother: {\n  a: 1\n}\n", as: .yaml) == .object([
            ("key", .array([.integer("1"), .integer("2")])), ("other", .object([("a", .integer("1"))])),
        ]))
    }

    @Test("tabs never indent, comments need a space before them, flow lines stay inside their block", arguments: [
        ("a:\n\t- b\n", 2, 2), ("key: \"value\"# comment\n", 1, 13), ("flow: [a,\nb]\n", 2, 1), ("- [-]\n", 1, 4),
    ])
    func yaml12Errors(_ text: String, _ line: Int, _ column: Int) throws {
        let error = try #require(readError(text, as: .yaml))
        #expect(error.line == line && error.column == column, "\(error)")
    }

    @Test("an empty stream and invalid UTF-8 are errors")
    func emptyAndInvalid() {
        #expect(readError("# only a comment\n", as: .yaml)?.message == "empty document; expected a YAML value")
        let error = readError(bytes: Array("a: b\nc: ".utf8) + [0xFE], as: .yaml)
        #expect(error?.line == 2 && error?.column == 4)
    }

    @Test("alias bombs stop at the node budget instead of exhausting memory")
    func aliasBomb() throws {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for i in 1 ..< 10 {
            text += "a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n"
        }
        let error = try #require(readError(text, as: .yaml))
        #expect(error.message.hasPrefix("aliases expand to more than 1000000 nodes"))
    }

    @Test("deep nesting is an error, not a crash")
    func deepNesting() {
        let deep = String(repeating: "[", count: 10_001) + String(repeating: "]", count: 10_001)
        #expect(readError(deep, as: .yaml) != nil)
    }

    @Test("the writer quotes strings that would read back as another kind", arguments: [
        "true", "False", "yes", "off", "null", "~", "42", "-1.5", "1e3", "0x1F", ".inf", "2001-01-01", "", " lead", "trail ",
        "a: b", "# c", "- x", "[x]", "{x}", "*x", "&x", "!x", "'x'", "\"x\"", "a\nb", "tab\there", "bell\u{7}", "\u{85}", "\u{2028}",
        "é", "東京", "😀", "<<", "=", "@x", "`x", "%x", "|", ">", "a #b", "y", "n",
    ])
    func quoting(_ text: String) throws {
        let value = TreeValue.object([(text, .string(text))])
        #expect(try roundTrip(value, .yaml) == value)
    }

    @Test("the writer writes block style with two-space indent")
    func blockStyle() throws {
        let text = String(decoding: try DocumentWriter.data(TreeValue.seed.store, format: .yaml), as: UTF8.self)
        #expect(text.hasPrefix("""
            Rows:
              - Title: Item 1
                Children:
                  - Title: Screen A
              - Title: Item 2
            """))
        let nested = TreeValue.array([.array([.string("a"), .string("b")]), .object([]), .array([]), .null, .bool(false), .real("1")])
        #expect(String(decoding: try DocumentWriter.data(nested.store, format: .yaml), as: UTF8.self) == """
            - - a
              - b
            - {}
            - []
            - null
            - false
            - 1.0

            """)
    }
}
