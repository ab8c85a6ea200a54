import Foundation
import Mustache
import Testing
@testable import DrillDownWeb

/// ``TemplateParser`` reads templates as swift-mustache does: the same output for the constructs
/// the pages use, including its whitespace rules, on templates written to stress them.
@Suite("Template parser")
struct TemplateParserTests {
    static let templates: [String: String] = [
        "layout": "<main>\n{{$main}}default{{/main}}\n</main>\n{{$foot}}\n  x\n  {{/foot}}\n",
        "page": "{{<layout}}{{$main}}\n  <ul>\n  {{#rows}}\n    <li>{{title}} {{{html}}} {{&html}}</li>\n  {{/rows}}\n  </ul>\n{{/main}}{{/layout}}\n",
        "sections": "a {{#on}}on{{/on}} b\n{{^off}}\n  off\n{{/off}}\n  {{! a comment }}\n{{#on}}x{{/on}}\r\n{{#nested}}{{#deeper}}{{.}}{{/deeper}}{{/nested}}\nend",
        "partial": "{{>sections}}\n<p>{{missing}}</p>{{#rows}}{{title}}{{/rows}}",
        "blankTags": "  {{#on}}  \n  {{title}}\n  {{/on}}  \n",
    ]
    nonisolated(unsafe) static let context: [String: Any] = [
        "rows": [["title": "One & <two>", "html": "<b>"], ["title": "Three", "html": "<i>"]],
        "on": true, "off": false, "title": "T", "nested": ["deeper": ["p", "q"]],
    ]

    @Test("every template renders as swift-mustache renders it", arguments: templates.keys.sorted())
    func sameOutput(_ name: String) throws {
        var library = MustacheLibrary()
        for (key, text) in Self.templates { try library.register(text, named: key) }
        let compiled = try PageTemplates(sources: Self.templates)
        #expect(compiled.render(name, Self.context) == library.render(Self.context, withTemplate: name))
    }

    @Test("constructs the compiled renderer does not handle are refused, not misread")
    func unsupported() {
        for text in ["{{=<% %>=}}", "{{#open}}never closed", "{{/stray}}", "{{x", "  {{>indented}}\n", "  {{$block}}{{/block}}\n", "{{name(transform)}}"] {
            #expect(throws: PageTemplates.Unsupported.self, "\(text)") { try TemplateParser.parse(text) }
        }
    }
}
