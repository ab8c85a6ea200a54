import DrillDownCore
@testable import DrillDownFormats
import Testing

/// OPML 2.0 in both directions: outlines keep their text, attributes and nesting through a
/// read and a write, the head's title and elements are kept, and malformed or hostile input is
/// refused with its line and column.
@Suite("OPML")
struct OPMLTests {
    /// An outline as the tests build and compare it.
    struct Outline: Equatable {
        var text: String
        var attributes: [String: String]
        var children: [Outline]
    }

    /// The outlines below `id` as `source` shows them, `opml:` attributes named as in the file.
    static func outlines(_ source: any Source, _ id: NodeID) -> [Outline] {
        source.children(of: id).map { child in
            var attributes: [String: String] = [:]
            for a in source.attributes(of: child) {
                attributes[a.key.hasPrefix("opml:") ? String(a.key.dropFirst(5)) : a.key] = a.value.text
            }
            return Outline(text: source.title(of: child), attributes: attributes, children: outlines(source, child))
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> DocumentSource {
        DocumentSource(tree: try DocumentReader.read(bytes: bytes, file: "t.opml").tree)
    }

    /// `outlines` as OPML text written by hand (not by ``OPMLWriter``), attributes in a fixed order.
    static func xml(_ outlines: [Outline], title: String) -> String {
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "\n", with: "&#xA;")
        }
        func write(_ o: Outline, _ indent: String) -> String {
            var s = indent + "<outline text=\"\(escape(o.text))\""
            for (k, v) in o.attributes.sorted(by: { $0.key < $1.key }) { s += " \(k)='\(escape(v).replacingOccurrences(of: "'", with: "&apos;"))'" }
            if o.children.isEmpty { return s + "/>\n" }
            return s + ">\n" + o.children.map { write($0, indent + "  ") }.joined() + indent + "</outline>\n"
        }
        return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- a comment -->\n<opml version=\"2.0\"><head><title>\(escape(title))</title></head>\n<body>\n"
            + outlines.map { write($0, "  ") }.joined() + "</body></opml>\n"
    }

    @Test("random outlines keep their text, attributes and nesting through reading and writing")
    func roundTrip() throws {
        var rng = SeededGenerator(seed: 2005)
        let alphabet: [String] = ["a", "Z", "9", " ", "&", "<", ">", "\"", "'", "é", "東", "😀", "\n", ";", "#"]
        let names = ["type", "url", "xmlUrl", "created", "title", "name", "isComment", "ns:custom", "children"]
        func text() -> String { (0 ..< Int.random(in: 0 ... 10, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }.joined() }
        func outline(_ depth: Int) -> Outline {
            var attributes: [String: String] = [:]
            for _ in 0 ..< Int.random(in: 0 ... 3, using: &rng) { attributes[names.randomElement(using: &rng)!] = text() }
            let count = depth < 4 ? Int.random(in: 0 ... 3, using: &rng) : 0
            return Outline(text: text(), attributes: attributes, children: (0 ..< count).map { _ in outline(depth + 1) })
        }
        for round in 0 ..< 150 {
            let want = (0 ..< Int.random(in: 0 ... 4, using: &rng)).map { _ in outline(1) }
            let title = text()
            let read = try Self.parse(Array(Self.xml(want, title: title).utf8))
            #expect(Self.outlines(read, read.root) == want, "round \(round)")
            #expect(read.rootTitle == title)
            let written = try OPMLWriter.data(read)
            let again = try Self.parse(written)
            #expect(Self.outlines(again, again.root) == want, "round \(round): \(String(decoding: written, as: UTF8.self))")
            #expect(again.rootTitle == read.rootTitle)
            if Self.outlines(again, again.root) != want { break }
        }
    }

    @Test("the head's elements are the root's members and come back as head elements")
    func head() throws {
        let text = """
            <opml version="2.0"><head><title>Feeds &amp; more</title><dateCreated>Mon, 31 Oct 2005 19:23:00 GMT</dateCreated>\
            <ownerName>Zoë</ownerName></head><body><outline text="News" type="rss" xmlUrl="https://example.com/feed?a=1&amp;b=2"/></body></opml>
            """
        let tree = try read(text, as: .opml)
        #expect(tree == .object([
            ("title", .string("Feeds & more")), ("dateCreated", .string("Mon, 31 Oct 2005 19:23:00 GMT")), ("ownerName", .string("Zoë")),
            ("rows", .array([.object([("type", .string("rss")), ("xmlUrl", .string("https://example.com/feed?a=1&b=2")), ("title", .string("News"))])])),
        ]))
        let written = String(decoding: try DocumentWriter.data(tree.store, format: .opml), as: UTF8.self)
        #expect(written.contains("<title>Feeds &amp; more</title>"))
        #expect(written.contains("<ownerName>Zoë</ownerName>"))
        #expect(written.contains(#"<outline text="News" type="rss" xmlUrl="https://example.com/feed?a=1&amp;b=2"/>"#))
    }

    @Test("malformed OPML is refused with the line and column of the problem", arguments: [
        ("<opml version=\"2.0\">\n<body>\n<outline text=\"a\">\n</body></opml>", 4, 1, "expected </outline>"),
        ("<opml><body><outline text=\"a\" text=\"b\"/></body></opml>", 1, 31, "attribute text appears twice"),
        ("<opml><body><outline text=\"a &bogus; b\"/></body></opml>", 1, 30, "unknown entity &bogus;"),
        ("<opml><body>\n  <item text=\"a\"/></body></opml>", 2, 3, "expected <outline> in <body>"),
        ("<opml><body><outline text=\"a</body></opml>", 1, 29, "'<' in an attribute value"),
        ("<plist><dict/></plist>", 1, 1, "expected <opml>"),
        ("<opml><head><title>x</title><title>y</title></head><body/></opml>", 1, 29, "<title> appears twice in <head>"),
        ("<opml><body></body></opml><opml/>", 1, 27, "after </opml>"),
    ])
    func malformed(_ text: String, _ line: Int, _ column: Int, _ message: String) {
        let error = readError(text, as: .opml, file: "bad.opml")
        #expect(error?.line == line && error?.column == column, "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test("hostile OPML: nesting past the XML reader's depth budget is an error, a DOCTYPE's entities are never expanded")
    func hostile() {
        let depth = XMLPropertyListReader.maxDepth + 1
        let deep = "<opml><body>" + String(repeating: "<outline text=\"x\">", count: depth) + String(repeating: "</outline>", count: depth) + "</body></opml>"
        let error = readError(deep, as: .opml)
        #expect(error?.message.contains("nested deeper than \(XMLPropertyListReader.maxDepth)") == true, "\(String(describing: error))")
        let bomb = "<!DOCTYPE opml [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]><opml><body><outline text=\"&b;\"/></body></opml>"
        let refused = readError(bomb, as: .opml)
        #expect(refused?.message.contains("unknown entity &b;") == true, "\(String(describing: refused))")
    }

    @Test("a file without an extension is told to be OPML by its content")
    func detection() {
        #expect(DocumentFormat.detect(Array("<?xml version=\"1.0\"?>\n<opml version=\"2.0\">".utf8), fileExtension: nil) == .opml)
        #expect(DocumentFormat.detect(Array("<?xml version=\"1.0\"?>\n<plist>".utf8), fileExtension: nil) == .plistXML)
        #expect(DocumentFormat(fileExtension: "OPML") == .opml && DocumentFormat(fileExtension: "csv") == .csv)
    }

    @Test("an attribute key that is no XML name is refused, naming the row")
    func notAName() throws {
        let tree = try DocumentReader.read(bytes: Array(#"{"rows": [{"title": "A", "two words": 1}]}"#.utf8), file: "t.json").tree
        let error = #expect(throws: FormatError.self) { try DocumentWriter.data(tree, format: .opml) }
        #expect(error?.message.contains("'two words'") == true, "\(String(describing: error))")
    }
}
