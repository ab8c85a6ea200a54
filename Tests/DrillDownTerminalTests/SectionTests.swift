import DrillDownCore
import Testing
@testable import DrillDownTerminal

@Suite("Sections in the terminal UI (issue 12 item 1)")
struct TerminalSectionTests {
    func sectioned(_ titles: [String], height: Int = 10) throws -> Browser {
        let doc: Doc = .object([("Rows", .array(titles.map { row($0, [], [("kind", .string("artist"))]) }))])
        let schema: Doc = .object([("kinds", .object([("artist", .object([("section", .string("initial")), ("index", .bool(true))]))]))])
        return Browser(presenter: try presenter(doc, schema: schema), width: 40, height: height)
    }

    @Test("a sectioned level shows a header line above each section, and the key hint")
    func headers() throws {
        let b = try sectioned(["Abba", "AC/DC", "Blondie", "Cher"])
        let s = b.screen
        let heads = s.filter { $0.contains("── ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(heads == ["── A", "── B", "── C"], "\(s)")
        let a = try #require(s.firstIndex { $0.contains("── A") })
        #expect(s[a + 1].contains("Abba") && s[a + 2].contains("AC/DC") && s[a + 3].contains("── B"))
        #expect(b.keyHints.contains("[ ] section"))
    }

    @Test("] jumps to the next section's first row, [ back; the selected row stays on screen below its headers")
    func jumpKey() throws {
        let titles = (0 ..< 30).map { "A\($0)" } + (0 ..< 30).map { "B\($0)" } + ["Cher"]
        var b = try sectioned(titles, height: 10)
        b.press(.character("]"))
        #expect(b.positions.last?.selected == 30)
        #expect(b.screen.contains { $0.contains("── B") })
        #expect(b.screen.contains { $0.contains("B0") })
        b.press(.character("]"))
        #expect(b.positions.last?.selected == 60)
        b.press(.character("["))
        #expect(b.positions.last?.selected == 30)
        b.press(.down, .down)
        b.press(.character("["))
        #expect(b.positions.last?.selected == 30)
        b.press(.end)
        #expect(b.screen.contains { $0.contains("Cher") })
        b.press(.up)
        #expect(b.screen.contains { $0.contains("B29") })
    }
}
