/// Reads the Mustache subset the pages use into ``PageTemplates/Node``s: text, `{{name}}`,
/// `{{{name}}}` and `{{&name}}`, sections `{{#…}}`, inverted sections `{{^…}}`, comments
/// `{{!…}}`, partials `{{>name}}`, parents `{{<name}}…{{/name}}` and blocks `{{$name}}…{{/name}}`.
///
/// Whitespace follows swift-mustache's parser step by step (its `newLine` state: a section,
/// comment, partial, parent or block tag met at the start of a line, after nothing but blanks, and
/// followed by nothing but blanks and a newline, is left out with them; a parent's body starts on a
/// new line; inside a parent's block the first line's indent is taken off every line), so the
/// output is byte for byte swift-mustache's, which `PageTemplateTests` checks on every screen.
/// Anything else (set delimiters, transforms, dynamic names, indented partials or blocks) is
/// ``PageTemplates/Unsupported``, and the app then renders with swift-mustache itself.
///
/// ```swift
/// let nodes = try TemplateParser.parse("{{#rows}}<li>{{title}}</li>{{/rows}}")
/// ```
enum TemplateParser {
    typealias Node = PageTemplates.Node
    typealias Unsupported = PageTemplates.Unsupported

    /// The parser's state for one level (a section's body), as swift-mustache keeps it.
    struct State {
        var section: String?
        var newLine = true
        /// Inside a parent (`{{<…}}`): its direct body, where only blocks count.
        var parentTop = false
        /// Inside a parent's block: the first line's indent, taken off every line.
        var inParent = false
        var indent: [UInt8]?
    }

    static func parse(_ template: String) throws(Unsupported) -> [Node] {
        var reader = Reader(bytes: Array(template.utf8))
        return try level(&reader, State())
    }

    /// The nodes up to the end of `state.section` (its closing tag read) or of the text.
    static func level(_ r: inout Reader, _ start: State) throws(Unsupported) -> [Node] {
        var state = start
        var nodes: [Node] = []
        var blanks: [UInt8] = []
        func emit(_ text: [UInt8]) {
            guard !text.isEmpty else { return }
            let string = String(decoding: text, as: UTF8.self)
            if case .text(let previous)? = nodes.last {
                nodes[nodes.count - 1] = .text(previous + string)
            } else {
                nodes.append(.text(string))
            }
        }
        func flushBlanks() {
            emit(blanks)
            blanks = []
        }
        while !r.atEnd {
            if state.newLine {
                let read = r.blanks()
                if state.inParent, !state.parentTop {
                    if let indent = state.indent {
                        blanks = Array(read.dropFirst(min(indent.count, read.count)))
                    } else {
                        state.indent = read
                    }
                } else {
                    blanks = read
                }
            }
            let (text, newline) = r.textUntilTagOrNewline()
            if let newline {
                emit(blanks + text + newline)
                blanks = []
                state.newLine = true
                continue
            }
            if !text.isEmpty {
                emit(blanks + text)
                blanks = []
                state.newLine = false
            }
            guard r.openedTag else { break }
            var standalone = false
            switch r.peek {
            case UInt8(ascii: "#"), UInt8(ascii: "^"):
                let inverted = r.next() == UInt8(ascii: "^")
                let name = try r.name()
                standalone = r.lineFinished(if: state.newLine)
                if !standalone { flushBlanks() }
                var inner = state
                inner.section = name
                inner.parentTop = false
                if !standalone { inner.newLine = false }
                let body = try level(&r, inner)
                let path = name.split(separator: ".").map { TemplateName(String($0)) }
                nodes.append(inverted ? .inverted(path, body) : .section(path, body))
            case UInt8(ascii: "/"):
                r.skip()
                let name = try r.name()
                guard name == state.section else { throw Unsupported(description: "{{/\(name)}} closes no open section") }
                if !r.lineFinished(if: state.newLine) { flushBlanks() }
                return nodes
            case UInt8(ascii: "!"):
                r.skip()
                _ = try r.rest(until: [125, 125])
                standalone = r.lineFinished(if: state.newLine)
                if !standalone { flushBlanks() }
            case UInt8(ascii: "{"), UInt8(ascii: "&"):
                flushBlanks()
                let triple = r.next() == UInt8(ascii: "{")
                let name = try r.name(closing: triple ? [125, 125, 125] : [125, 125])
                nodes.append(.variable(path(name), escaped: false))
            case UInt8(ascii: ">"):
                r.skip()
                let name = try r.name()
                standalone = r.lineFinished(if: state.newLine)
                if standalone, !blanks.isEmpty { throw Unsupported(description: "an indented partial \(name)") }
                flushBlanks()
                nodes.append(.parent(name, [:]))
            case UInt8(ascii: "<"):
                r.skip()
                let name = try r.name()
                if !blanks.isEmpty { throw Unsupported(description: "an indented parent \(name)") }
                standalone = r.lineFinished(if: state.newLine)
                var inner = state
                inner.section = name
                inner.newLine = true
                inner.inParent = true
                inner.parentTop = true
                var blocks: [String: [Node]] = [:]
                for node in try level(&r, inner) {
                    switch node {
                    case .block(let block, let body): blocks[block] = body
                    case .text: break
                    default: throw Unsupported(description: "something other than blocks inside {{<\(name)}}")
                    }
                }
                nodes.append(.parent(name, blocks))
            case UInt8(ascii: "$"):
                r.skip()
                let name = try r.name()
                if !state.parentTop, !blanks.isEmpty { throw Unsupported(description: "an indented block \(name)") }
                standalone = r.lineFinished(if: state.newLine)
                var inner = state
                inner.section = name
                inner.parentTop = false
                if !standalone { inner.newLine = false }
                nodes.append(.block(name, try level(&r, inner)))
            case UInt8(ascii: "="), UInt8(ascii: "%"):
                throw Unsupported(description: "set delimiters or configuration tags")
            default:
                flushBlanks()
                nodes.append(.variable(path(try r.name()), escaped: true))
            }
            state.newLine = standalone
        }
        guard state.section == nil else { throw Unsupported(description: "{{\(state.section!)}} is never closed") }
        return nodes
    }

    static func path(_ name: String) -> [TemplateName] { name == "." ? [.dot] : name.split(separator: ".").map { TemplateName(String($0)) } }

    /// A position in a template's bytes.
    struct Reader {
        let bytes: [UInt8]
        var i = 0
        /// Set when the last text read stopped at `{{` (consumed).
        var openedTag = false

        var atEnd: Bool { i >= bytes.count }
        var peek: UInt8 { bytes[i] }

        mutating func skip() { i += 1 }

        mutating func next() -> UInt8 {
            defer { i += 1 }
            return bytes[i]
        }

        mutating func blanks() -> [UInt8] {
            let start = i
            while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 { i += 1 }
            return Array(bytes[start ..< i])
        }

        /// The text up to a newline (returned apart, consumed) or up to `{{` (consumed; ``openedTag``).
        mutating func textUntilTagOrNewline() -> ([UInt8], [UInt8]?) {
            openedTag = false
            let start = i
            while i < bytes.count {
                let b = bytes[i]
                if b == 10 {
                    i += 1
                    return (Array(bytes[start ..< i - 1]), [10])
                }
                if b == 13, i + 1 < bytes.count, bytes[i + 1] == 10 {
                    i += 2
                    return (Array(bytes[start ..< i - 2]), [13, 10])
                }
                if b == 123, i + 1 < bytes.count, bytes[i + 1] == 123 {
                    let text = Array(bytes[start ..< i])
                    i += 2
                    openedTag = true
                    return (text, nil)
                }
                i += 1
            }
            return (Array(bytes[start ..< i]), nil)
        }

        /// Everything up to `closing` (consumed).
        mutating func rest(until closing: [UInt8]) throws(Unsupported) -> [UInt8] {
            let start = i
            while i + closing.count <= bytes.count {
                if bytes[i ..< i + closing.count].elementsEqual(closing) {
                    defer { i += closing.count }
                    return Array(bytes[start ..< i])
                }
                i += 1
            }
            throw Unsupported(description: "a tag left open at byte \(start)")
        }

        /// A tag's name up to `closing`, blanks around it dropped.
        mutating func name(closing: [UInt8] = [125, 125]) throws(Unsupported) -> String {
            let raw = try rest(until: closing)
            let name = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(where: { $0 == "(" || $0 == " " || $0 == "*" }) else {
                throw Unsupported(description: "the tag name '\(name)'")
            }
            return name
        }

        /// Whether the line ends here (blanks, then a newline, consumed, or the end), when `atLineStart`.
        mutating func lineFinished(if atLineStart: Bool) -> Bool {
            guard atLineStart else { return false }
            if atEnd { return true }
            var k = i
            while k < bytes.count, bytes[k] == 32 || bytes[k] == 9 { k += 1 }
            if k < bytes.count, bytes[k] == 10 {
                i = k + 1
                return true
            }
            if k + 1 < bytes.count, bytes[k] == 13, bytes[k + 1] == 10 {
                i = k + 2
                return true
            }
            return false
        }
    }
}
