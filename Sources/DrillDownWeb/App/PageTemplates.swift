
/// The bundled Mustache templates compiled for speed: the same output as swift-mustache's
/// renderer (``Assets`` keeps it as the reference and `PageTemplateTests` compares the two on
/// every screen), rendering typed contexts (``TemplateContext``).
///
/// ``TemplateParser`` reads the templates' text once, at start, into a tree of ``Node``s (with the
/// specification's standalone-line rule, as swift-mustache applies it), each name resolved to its
/// ``TemplateName`` number. Rendering then finds a name by comparing numbers along the context
/// stack (no hashing, no casts of `Any`), escapes bytes instead of `Character`s, and appends to
/// one ``HTML`` buffer. Templates using anything beyond variables, sections, inverted sections,
/// parents (`{{<layout}}`) and blocks (`{{$main}}`) are not compiled: ``init(sources:)``
/// throws and the app keeps rendering with swift-mustache.
struct PageTemplates: Sendable {
    /// Why a template could not be compiled.
    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    indirect enum Node: Sendable {
        case text(String)
        /// `{{name}}` (escaped) or `{{{name}}}`; the name split at dots (`[.dot]` for the top).
        case variable([TemplateName], escaped: Bool)
        case section([TemplateName], [Node])
        case inverted([TemplateName], [Node])
        /// `{{$name}}default{{/name}}` in a parent: replaced by the child's block of that name.
        case block(String, [Node])
        /// `{{<name}}…{{/name}}`: the template `name` rendered with these blocks.
        case parent(String, [String: [Node]])
    }

    let templates: [String: [Node]]

    /// Compiles every template of `sources` (texts by name).
    /// - Throws: ``Unsupported`` for a construct the compiled renderer does not handle.
    init(sources: [String: String]) throws {
        var compiled: [String: [Node]] = [:]
        for (name, text) in sources { compiled[name] = try TemplateParser.parse(text) }
        for nodes in compiled.values { try Self.checkParents(nodes, known: compiled) }
        templates = compiled
    }

    /// Renders template `name` with `context`; `nil` when there is no such template.
    func render(_ name: String, _ context: TemplateContext) -> String? {
        renderHTML(name, context)?.description
    }

    /// Renders template `name` with a `[String: Any]` context (see ``TemplateValue/init(any:)``).
    func render(_ name: String, _ context: [String: Any]) -> String? {
        render(name, TemplateContext(context))
    }

    /// Renders template `name` with `context` as UTF-8 bytes; `nil` when there is no such template.
    func renderHTML(_ name: String, _ context: TemplateContext, capacity: Int = 8192) -> HTML? {
        guard let nodes = templates[name] else { return nil }
        var out = HTML(capacity: capacity)
        var stack: [TemplateValue] = [.object(context)]
        stack.reserveCapacity(8)
        render(nodes, &stack, blocks: [:], into: &out)
        return out
    }

    // MARK: Rendering

    private func render(_ nodes: [Node], _ stack: inout [TemplateValue], blocks: [String: [Node]], into out: inout HTML) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .variable(let name, let escaped):
                guard let value = Self.lookup(name, in: stack) else { continue }
                Self.write(value, escaped: escaped, into: &out)
            case .section(let name, let body):
                switch Self.lookup(name, in: stack) {
                case nil: continue
                case .bool(let b)?:
                    if b { render(body, &stack, blocks: blocks, into: &out) }
                case .list(let items)?:
                    for item in items {
                        stack.append(item)
                        render(body, &stack, blocks: blocks, into: &out)
                        stack.removeLast()
                    }
                case let value?:
                    stack.append(value)
                    render(body, &stack, blocks: blocks, into: &out)
                    stack.removeLast()
                }
            case .inverted(let name, let body):
                switch Self.lookup(name, in: stack) {
                case nil: render(body, &stack, blocks: blocks, into: &out)
                case .bool(let b)?:
                    if !b { render(body, &stack, blocks: blocks, into: &out) }
                case .list(let items)? where items.isEmpty:
                    stack.append(.list(items))
                    render(body, &stack, blocks: blocks, into: &out)
                    stack.removeLast()
                default: continue
                }
            case .block(let name, let fallback):
                render(blocks[name] ?? fallback, &stack, blocks: blocks, into: &out)
            case .parent(let name, let overrides):
                guard let nodes = templates[name] else { continue }
                // Blocks given further out win, as in swift-mustache.
                let merged = blocks.isEmpty ? overrides : blocks.merging(overrides) { outer, _ in outer }
                render(nodes, &stack, blocks: merged, into: &out)
            }
        }
    }

    /// `{{value}}` (escaped) or `{{{value}}}`; other values print as `String(describing:)` does.
    static func write(_ value: TemplateValue, escaped: Bool, into out: inout HTML) {
        switch value {
        case .text(let s):
            if escaped { out.appendEscaped(s) } else { out += s }
        case .html(let html):
            if escaped { out.appendEscaped(html.description) } else { out.append(html) }
        case .writer(let write):
            if escaped { out.appendEscaped(TemplateValue.written(write).description) } else { write(&out) }
        case .int(let n): out.append(n)
        case .bool(let b): out.write(b ? "true" : "false")
        case .object, .list:
            let text = String(describing: value.any)
            if escaped { out.appendEscaped(text) } else { out += text }
        }
    }

    /// The value of a (dotted) name: the first context up the stack that has the first part.
    static func lookup(_ name: [TemplateName], in stack: [TemplateValue]) -> TemplateValue? {
        guard let first = name.first else { return nil }
        if first == .dot { return stack.last }
        var found: TemplateValue?
        var level = stack.count - 1
        while level >= 0 {
            if case .object(let context) = stack[level], let value = context.value(of: first.id) {
                found = value
                break
            }
            level -= 1
        }
        var k = 1
        while k < name.count {
            guard case .object(let context)? = found else { return nil }
            found = context.value(of: name[k].id)
            k += 1
        }
        return found
    }

    /// Every parent a template names must be one of the compiled templates.
    static func checkParents(_ nodes: [Node], known: [String: [Node]]) throws {
        for node in nodes {
            switch node {
            case .text, .variable: break
            case .section(_, let body), .inverted(_, let body), .block(_, let body): try checkParents(body, known: known)
            case .parent(let name, let overrides):
                guard known[name] != nil else { throw Unsupported(description: "an unknown parent template \(name)") }
                for body in overrides.values { try checkParents(body, known: known) }
            }
        }
    }
}
