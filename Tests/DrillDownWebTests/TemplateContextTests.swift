import Foundation
import Mustache
import Testing
@testable import DrillDownWeb

/// Typed contexts (``TemplateContext``) render as swift-mustache renders the same values given as
/// a `[String: Any]`, and a `.writer` value writes its markup where `{{{name}}}` stands.
@Suite("Template contexts")
struct TemplateContextTests {
    static let template = """
        <h1>{{title}}</h1>{{#back}}<a href="{{href}}">{{label}} of {{title}}</a>{{/back}}
        <ul data-total="{{total}}"{{#virtual}} data-virtual="1"{{/virtual}}>
        {{{rowsHTML}}}
        </ul>{{^empty}}not empty{{/empty}}{{#none}}hidden{{/none}}{{^none}}shown{{/none}}
        {{#pager}}{{#prev}}<a href="{{prev}}">‹</a>{{/prev}} {{from}}–{{to}} of {{total}}{{/pager}}
        {{#titles}}<li>{{title}}</li>{{/titles}}{{^titles}}<li>no titles</li>{{/titles}}
        {{#history.undo}}{{#disabled}} disabled{{/disabled}} title="{{label}}"{{/history.undo}}
        {{{sortHTML}}} {{sortHTML}} {{#names}}[{{.}}]{{/names}}
        """

    static var context: TemplateContext {
        [
            .title: .text("Rock & <Roll>"), .back: .object([.href: .text("/l/0?a=1&b=2"), .label: .text("Back")]),
            .total: .int(1_000_000), .virtual: .bool(true), .empty: .bool(false),
            .rowsHTML: .writer { $0 += "<li class=\"row\">O'Brien</li>" },
            .pager: .object([.from: .int(101), .to: .int(200), .prev: .text("/?offset=0&x=\"")]),
            .titles: .list([.object([.title: .text("One")]), .object([.title: .text("Two > one")])]),
            .history: .object([.undo: .object([.disabled: .bool(true), .label: .text("Nothing to undo")])]),
            .sortHTML: .html(HTML("<b>sorted</b>")), "names": .list([.text("a"), .text("b&c")]),
        ]
    }

    @Test("a typed context renders as swift-mustache renders its values")
    func sameAsMustache() throws {
        var library = MustacheLibrary()
        try library.register(Self.template, named: "page")
        let compiled = try PageTemplates(sources: ["page": Self.template])
        let typed = try #require(compiled.renderHTML("page", Self.context)).description
        #expect(typed == library.render(Self.context.dictionary, withTemplate: "page"))
        #expect(typed.contains("<ul data-total=\"1000000\" data-virtual=\"1\">\n<li class=\"row\">O'Brien</li>\n</ul>"))
        #expect(typed.contains("Rock &amp; &lt;Roll&gt;"))
        #expect(typed.contains("[a][b&amp;c]"))
        // The same values as a `[String: Any]` context (the other screens') render the same.
        #expect(compiled.render("page", Self.context.dictionary) == typed)
    }

    @Test("setting a name again replaces it; setting nil removes it; merging replaces by name")
    func entries() {
        var c: TemplateContext = [.title: .text("a")]
        c[.title] = .text("b")
        c[.total] = .int(3)
        guard case .text("b")? = c[.title], case .int(3)? = c[.total] else { Issue.record("not replaced"); return }
        c[.title] = nil
        #expect(c[.title] == nil)
        c.merge([.total: .int(4), .path: .text("0.1")])
        guard case .int(4)? = c[.total], case .text("0.1")? = c[.path] else { Issue.record("not merged"); return }
        #expect(c.dictionary.count == 2)
    }
}
