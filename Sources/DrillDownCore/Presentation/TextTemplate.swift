/// A text with `{key}` and `{key|formatter}` placeholders, e.g. `"{length|duration}"`.
///
/// `{title}` is the node's title and `{value}` its scalar value when no attribute has that name.
/// A template whose placeholders all come out empty renders as `""`.
public struct TextTemplate: Sendable, Equatable, CustomStringConvertible {
    enum Part: Sendable, Equatable {
        case literal(String)
        case field(key: String, formatters: [Formatter])
    }

    let parts: [Part]
    /// The template as written.
    public let source: String

    /// Why a template does not parse.
    public struct ParseError: Error, Sendable, Equatable {
        /// What is wrong, for people.
        public var message: String
    }

    /// Parses a template.
    public init(_ source: String) throws(ParseError) {
        self.source = source
        var parts: [Part] = []
        var literal = ""
        var i = source.startIndex
        while i < source.endIndex {
            let ch = source[i]
            if ch == "{" {
                guard let close = source[i...].firstIndex(of: "}") else {
                    throw ParseError(message: "unclosed '{' in template \"\(source)\"")
                }
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                let inner = source[source.index(after: i) ..< close].split(separator: "|").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                guard let key = inner.first, !key.isEmpty else {
                    throw ParseError(message: "empty placeholder in template \"\(source)\"")
                }
                var formatters: [Formatter] = []
                for name in inner.dropFirst() {
                    guard let f = Formatter(rawValue: name.lowercased()) else {
                        let known = Formatter.allCases.map(\.rawValue).joined(separator: ", ")
                        throw ParseError(message: "unknown formatter '\(name)' in \"\(source)\" (expected one of \(known))")
                    }
                    formatters.append(f)
                }
                parts.append(.field(key: key, formatters: formatters))
                i = source.index(after: close)
            } else {
                literal.append(ch)
                i = source.index(after: i)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
        self.parts = parts
    }

    /// The attribute keys the template reads.
    public var keys: [String] {
        parts.compactMap { if case .field(let k, _) = $0 { k } else { nil } }
    }

    /// Renders with `lookup` answering each placeholder's raw text (nil when absent).
    public func render(_ lookup: (String) -> String?) -> String {
        var out = ""
        var anyField = false
        var anyValue = false
        for part in parts {
            switch part {
            case .literal(let s): out += s
            case .field(let key, let formatters):
                anyField = true
                guard var text = lookup(key), !text.isEmpty else { continue }
                anyValue = true
                for f in formatters { text = f.format(text) }
                out += text
            }
        }
        return anyField && !anyValue ? "" : out
    }

    public var description: String { source }
}

import Foundation
