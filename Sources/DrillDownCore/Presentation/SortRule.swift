import Foundation

/// How a level's rows are ordered for display (the schema's `sort:` key on a kind, or the web
/// app's Sort menu): by the row title, by a field or by a text template, ascending or, with a
/// leading `-`, descending.
///
/// ```yaml
/// kinds:
///   artist: { title: "{name}", sort: title }      # A–Z by the shown title
///   album:  { title: "{title}", sort: "{year}" }   # a template: oldest first
///   song:   { title: "{name}", sort: -plays }      # a field, descending
/// ```
///
/// Values that read as numbers compare numerically and come before text; text compares folded
/// (case, accents and width ignored, for the locale) after dropping a leading article the schema
/// lists in `sortIgnoring:`; rows without a value come last. Ties keep the data's order (the sort
/// is stable). The rule only orders what is shown: TreePaths keep naming the data.
public struct SortRule: Sendable, Hashable, CustomStringConvertible {
    /// What a row is sorted by.
    public enum Key: Sendable, Hashable {
        /// The row's title as the template shows it.
        case title
        /// One attribute, read raw (a number stays a number).
        case field(String)
        /// A text template rendered for each row, e.g. `{year}`.
        case template(String)
    }

    /// What rows are sorted by.
    public var key: Key
    /// Whether the order is reversed (`-year`).
    public var descending: Bool
    let template: TextTemplate?

    /// Creates a rule.
    public init(_ key: Key, descending: Bool = false) {
        self.key = key
        self.descending = descending
        if case .template(let text) = key { template = try? TextTemplate(text) } else { template = nil }
    }

    /// Parses `title`, a field name (`plays`) or a template (`{year}`), each optionally preceded
    /// by `-` (descending) or `+` (ascending).
    public init(_ text: String) throws(TextTemplate.ParseError) {
        var t = text.trimmingCharacters(in: .whitespaces)
        var descending = false
        if let sign = t.first, sign == "-" || sign == "+" {
            descending = sign == "-"
            t = String(t.dropFirst()).trimmingCharacters(in: .whitespaces)
        }
        guard !t.isEmpty else { throw TextTemplate.ParseError(message: "expected title, a field name or a template such as \"{year}\", found '\(text)'") }
        if t.contains("{") || t.contains("}") {
            let parsed = try TextTemplate(t)
            self.key = .template(t)
            self.template = parsed
        } else if t.lowercased() == "title" {
            self.key = .title
            self.template = nil
        } else {
            self.key = .field(t)
            self.template = nil
        }
        self.descending = descending
    }

    /// The rule as written (`title`, `-year`, `{year}`); it parses back to the same rule.
    public var description: String {
        let body: String
        switch key {
        case .title: body = "title"
        case .field(let name): body = name
        case .template(let text): body = text
        }
        return (descending ? "-" : "") + body
    }

    public static func == (a: SortRule, b: SortRule) -> Bool { a.key == b.key && a.descending == b.descending }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(descending)
    }
}
