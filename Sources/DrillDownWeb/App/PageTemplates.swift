import Mustache

/// The bundled Mustache templates compiled for speed: the same output as swift-mustache's
/// renderer (``Assets`` keeps it as the reference and `PageTemplateTests` compares the two on
/// every screen), several times faster on the pages' `[String: Any]` contexts.
///
/// ``TemplateParser`` reads the templates' text once, at start, into a tree of ``Node``s (with the
/// specification's standalone-line rule, as swift-mustache applies it). Rendering then looks names up
/// in dictionaries without protocol casts per tag, escapes bytes instead of `Character`s, and
/// appends to one string. Templates using anything beyond variables, sections, inverted sections,
/// parents (`{{<layout}}`) and blocks (`{{$main}}`) are not compiled: ``init(library:names:)``
/// throws and the app keeps rendering with swift-mustache.
struct PageTemplates: Sendable {
    /// Why a template could not be compiled.
    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    indirect enum Node: Sendable {
        case text(String)
        /// `{{name}}` (escaped) or `{{{name}}}`; the name split at dots (`["."]` for the top).
        case variable([String], escaped: Bool)
        case section([String], [Node])
        case inverted([String], [Node])
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
    func render(_ name: String, _ context: [String: Any]) -> String? {
        renderHTML(name, context)?.description
    }

    /// Renders template `name` with `context` as UTF-8 bytes; `nil` when there is no such template.
    /// An ``HTML`` value in the context is copied in as it is (`{{{rowsHTML}}}`).
    func renderHTML(_ name: String, _ context: [String: Any], capacity: Int = 8192) -> HTML? {
        guard let nodes = templates[name] else { return nil }
        var out = HTML(capacity: capacity)
        var stack: [Frame] = [.dictionary(context)]
        render(nodes, &stack, blocks: [:], into: &out)
        return out
    }

    // MARK: Rendering

    private func render(_ nodes: [Node], _ stack: inout [Frame], blocks: [String: [Node]], into out: inout HTML) {
        for node in nodes {
            switch node {
            case .text(let text):
                out += text
            case .variable(let name, let escaped):
                guard let value = Self.lookup(name, in: stack) else { continue }
                if let s = value as? String {
                    if escaped { out.appendEscaped(s) } else { out += s }
                } else if let html = value as? HTML, !escaped {
                    out.append(html)
                } else {
                    let text = Self.describe(value)
                    if escaped { out.appendEscaped(text) } else { out += text }
                }
            case .section(let name, let body):
                guard let value = Self.lookup(name, in: stack) else { continue }
                if let b = value as? Bool {
                    if b { render(body, &stack, blocks: blocks, into: &out) }
                } else if let items = Self.items(value) {
                    for item in items {
                        stack.append(Frame(item))
                        render(body, &stack, blocks: blocks, into: &out)
                        stack.removeLast()
                    }
                } else {
                    stack.append(Frame(value))
                    render(body, &stack, blocks: blocks, into: &out)
                    stack.removeLast()
                }
            case .inverted(let name, let body):
                guard let value = Self.lookup(name, in: stack) else {
                    render(body, &stack, blocks: blocks, into: &out)
                    continue
                }
                if let b = value as? Bool {
                    if !b { render(body, &stack, blocks: blocks, into: &out) }
                } else if let items = Self.items(value), items.isEmpty {
                    stack.append(Frame(value))
                    render(body, &stack, blocks: blocks, into: &out)
                    stack.removeLast()
                }
            case .block(let name, let fallback):
                render(blocks[name] ?? fallback, &stack, blocks: blocks, into: &out)
            case .parent(let name, let overrides):
                guard let nodes = templates[name] else { continue }
                // Blocks given further out win, as in swift-mustache.
                let merged = blocks.merging(overrides) { outer, _ in outer }
                render(nodes, &stack, blocks: merged, into: &out)
            }
        }
    }

    /// A context on the stack, its kind found once when pushed rather than at every lookup (a
    /// cast of `Any` to a dictionary per lookup was a tenth of a level page's instructions).
    enum Frame {
        case dictionary([String: Any])
        case strings([String: String])
        case value(Any)

        init(_ value: Any) {
            let type = type(of: value)
            if type == [String: Any].self {
                self = .dictionary(value as! [String: Any])
            } else if type == [String: String].self {
                self = .strings(value as! [String: String])
            } else if let dictionary = value as? [String: Any] {
                self = .dictionary(dictionary)
            } else {
                self = .value(value)
            }
        }

        /// The entry `name`, unwrapped (see ``PageTemplates/child(_:of:)``).
        func child(_ name: String) -> Any? {
            switch self {
            case .dictionary(let d): d[name].flatMap(PageTemplates.unwrap)
            case .strings(let d): d[name]
            case .value(let v): PageTemplates.child(name, of: v)
            }
        }

        var value: Any {
            switch self {
            case .dictionary(let d): d
            case .strings(let d): d
            case .value(let v): v
            }
        }
    }

    /// The value of a (dotted) name: the first object up the stack that has the first part.
    static func lookup(_ name: [String], in stack: [Frame]) -> Any? {
        guard let first = name.first else { return nil }
        if first == "." { return stack.last.flatMap { unwrap($0.value) } }
        var found: Any?
        var level = stack.count - 1
        while level >= 0 {
            if let value = stack[level].child(first) {
                found = value
                break
            }
            level -= 1
        }
        // By index: `dropFirst()` made a slice per lookup, a few percent of a page's instructions.
        var k = 1
        while k < name.count {
            guard let object = found else { return nil }
            found = child(name[k], of: object)
            k += 1
        }
        return found
    }

    /// A dictionary's entry, or (as swift-mustache does for other values) a stored property read by reflection.
    static func child(_ name: String, of object: Any) -> Any? {
        // The pages' own context types first, by type identity: a cast of `[String: String]` to
        // `[String: Any]` builds a new dictionary, and `unwrap` asked a `Mirror` about each value.
        let objectType = type(of: object)
        if objectType == [String: Any].self { return (object as! [String: Any])[name].flatMap(unwrap) }
        if objectType == [String: String].self { return (object as! [String: String])[name] }
        if let dictionary = object as? [String: Any] { return dictionary[name].flatMap(unwrap) }
        if object is String || object is Int || object is Bool || object is Double || object is HTML { return nil }
        if let parent = object as? MustacheParent { return parent.child(named: name).flatMap(unwrap) }
        guard let match = Mirror(reflecting: object).children.first(where: { $0.label == name }) else { return nil }
        return unwrap(match.value)
    }

    /// `value` without an `Optional` wrapper; `nil` for `Optional.none`.
    static func unwrap(_ value: Any) -> Any? {
        let type = type(of: value)
        if isPlain(type) || type == [[String: Any]].self || type == [String].self || type == [Any].self { return value }
        // A conformance check, not a `Mirror` (which cost a page's lookups a tenth of its instructions).
        guard let optional = value as? any AnyOptional else { return value }
        return optional.wrappedValue.flatMap(unwrap)
    }

    /// Whether values of `type` are never `Optional` nor a list: strings, numbers, flags, HTML and
    /// the dictionaries pages build (a metadata comparison each, no dynamic cast).
    @inline(__always)
    static func isPlain(_ type: Any.Type) -> Bool {
        type == String.self || type == Int.self || type == Bool.self || type == [String: Any].self
            || type == [String: String].self || type == HTML.self
    }

    /// The elements of an array value (a section repeats for each), or `nil` when it is not one.
    static func items(_ value: Any) -> [Any]? {
        if isPlain(type(of: value)) { return nil }
        if let rows = value as? [[String: Any]] { return rows }
        if value is String || value is Int || value is [String: Any] || value is HTML { return nil }
        if let list = value as? [Any] { return list }
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .collection || mirror.displayStyle == .set else { return nil }
        return mirror.children.map(\.value)
    }

    /// How a non-string value prints, as `String(describing:)` does.
    static func describe(_ value: Any) -> String {
        if let n = value as? Int { return String(n) }
        if let b = value as? Bool { return b ? "true" : "false" }
        return String(describing: value)
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

/// An `Optional` of any type, so ``PageTemplates/unwrap(_:)`` can look inside one held as `Any`.
private protocol AnyOptional {
    var wrappedValue: Any? { get }
}

extension Optional: AnyOptional {
    fileprivate var wrappedValue: Any? { map { $0 as Any } }
}
