import Foundation
import Testing
@testable import DrillDownCore

@Suite("Sections and the section index (issue 12 item 1)")
struct SectionTests {
    @Test("initial: the first letter folded, upper-case, diacritics off; digits, symbols and empty under #", arguments: [
        ("Miles Davis", "M"), ("miles", "M"), ("Édith Piaf", "E"), ("éclair", "E"), ("  Ørjan", "Ø"),
        ("Ångström", "A"), ("42nd Street", "#"), ("!Hey", "#"), ("", "#"), ("   ", "#"), ("東京", "東"),
        ("Ｍｉｌｅｓ", "M"), ("ßeta", "S"),
    ])
    func initial(title: String, expected: String) {
        #expect(SectionRule.initial(of: title, locale: Locale(identifier: "en_US")) == expected)
    }

    @Test("a section is a run of equal keys in row order; the index lists each key once, first seen")
    func runs() {
        let s = Sections(keys: ["A", "A", "B", "", "A", "C", "C"], index: true)
        #expect(s.sections == [
            Section(title: "A", start: 0, count: 2), Section(title: "B", start: 2, count: 1),
            Section(title: "Other", start: 3, count: 1), Section(title: "A", start: 4, count: 1),
            Section(title: "C", start: 5, count: 2),
        ])
        #expect(s.index?.map(\.title) == ["A", "B", "Other", "C"])
        #expect(s.index?.map(\.start) == [0, 2, 3, 5])
        #expect(s.sections.map(\.count).reduce(0, +) == 7)
        #expect(Sections(keys: ["A"], index: false).index == nil)
        #expect(Sections(keys: [String](), index: true).sections.isEmpty)
    }

    @Test("the section of a row and the headers a window shows, by binary search")
    func lookups() {
        let s = Sections(keys: (0 ..< 100_000).map { $0 < 10 ? "#" : String(UnicodeScalar(65 + ($0 - 10) / 4000)!) }, index: true)
        #expect(s.sections.count == 26)
        #expect(s.section(containing: 0) == 0)
        #expect(s.section(containing: 9) == 0)
        #expect(s.section(containing: 10) == 1)
        #expect(s.section(containing: 99_999) == 25)
        #expect(s.section(containing: 100_000) == nil)
        #expect(s.index?.first(where: { $0.title == "M" })?.start == 10 + 12 * 4000)
        #expect(s.starting(in: 0 ..< 11).map(\.title) == ["#", "A"])
        #expect(s.starting(in: 5 ..< 4010).map(\.title) == ["A"])
        #expect(s.starting(in: 11 ..< 4000).isEmpty)
    }

    func library() -> (Presenter, NodeID) {
        let doc: Doc = .object([("Title", .string("Music")), ("Rows", .array([
            .object([("name", .string("Miles Davis")), ("genre", .string("Jazz"))]),
            .object([("name", .string("métal urbain")), ("genre", .string("Punk"))]),
            .object([("name", .string("Muddy Waters")), ("genre", .string("Blues"))]),
            .object([("name", .string("2Pac")), ("genre", .string("Hip hop"))]),
            .object([("name", .string("John Coltrane"))]),
        ]))])
        let schemaDoc: Doc = .object([
            ("root", .string("artist")),
            ("kinds", .object([("artist", .object([
                ("title", .string("{name}")), ("section", .string("initial")), ("index", .bool(true)),
            ]))])),
        ])
        let schema = try! Schema(tree: schemaDoc.tree)
        let source = DocumentSource(tree: doc.tree, keys: .standard)
        return (Presenter(source: source, schema: schema), source.root)
    }

    @Test("section: initial and index: true in a schema group a level by its titles' first letters")
    func initialFromSchema() throws {
        let (presenter, root) = library()
        let s = try #require(presenter.sections(of: root, locale: Locale(identifier: "en_US")))
        #expect(s.sections.map(\.title) == ["M", "#", "J"])
        #expect(s.sections.map(\.count) == [3, 1, 1])
        #expect(s.index?.map(\.title) == ["M", "#", "J"])
        // TreePaths stay row indices: sections do not reorder rows.
        #expect(presenter.rows(of: root).map(\.path) == (0 ..< 5).map { TreePath([$0]) })
    }

    @Test("section: \"{genre}\" groups by a template's value; rows without one fall under Other")
    func templateFromSchema() throws {
        let (presenter, root) = library()
        var schema = presenter.schema
        schema.kinds[0].section = try SectionRule("{genre}")
        schema.kinds[0].index = false
        let s = try #require(Presenter(source: presenter.source, schema: schema).sections(of: root))
        #expect(s.sections.map(\.title) == ["Jazz", "Punk", "Blues", "Hip hop", "Other"])
        #expect(s.index == nil)
        #expect(Presenter(source: presenter.source, schema: Schema()).sections(of: root) == nil)
    }

    @Test("section and index are read from a schema and checked")
    func schemaKeys() throws {
        let ok: Doc = .object([("kinds", .object([("a", .object([("section", .string("{genre|upper}")), ("index", .string("yes"))]))]))])
        let schema = try Schema(tree: ok.tree)
        #expect(schema.kinds[0].section == .template(try TextTemplate("{genre|upper}")))
        #expect(schema.kinds[0].index)
        let badIndex: Doc = .object([("kinds", .object([("a", .object([("index", .string("sometimes"))]))]))])
        #expect(throws: SchemaError.self) { try Schema(tree: badIndex.tree) }
        let badTemplate: Doc = .object([("kinds", .object([("a", .object([("section", .string("{genre|shout}"))]))]))])
        #expect(throws: SchemaError.self) { try Schema(tree: badTemplate.tree) }
    }
}
