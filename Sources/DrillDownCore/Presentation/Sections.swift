import Foundation

/// How a level's rows are grouped into sections (the schema's `section:` key on a kind).
///
/// ```yaml
/// kinds:
///   artist: { title: "{name}", section: initial, index: true }   # M, J, T, H, #
///   album:  { title: "{title}", section: "{genre}" }              # Jazz, Rock, …
/// ```
public enum SectionRule: Sendable, Equatable {
    /// Rows grouped by a template's value (`section: "{genre}"`).
    case template(TextTemplate)
    /// Rows grouped by the first letter of their title (`section: initial`): letters folded to an
    /// upper-case letter without diacritics (`é` and `É` under `E`), digits and symbols under `#`.
    case initial

    /// Parses `initial` or a text template.
    public init(_ text: String) throws(TextTemplate.ParseError) {
        if text.trimmingCharacters(in: .whitespaces).lowercased() == "initial" {
            self = .initial
        } else {
            self = .template(try TextTemplate(text))
        }
    }

    /// The section title `initial` gives `title`, folded for `locale`.
    /// - Complexity: O(1) (the first character only).
    public static func initial(of title: String, locale: Locale = .current) -> String {
        guard let first = title.first(where: { !$0.isWhitespace }), first.isLetter else { return "#" }
        let folded = String(first).folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: locale)
        let upper = folded.uppercased(with: locale)
        guard let letter = upper.first, letter.isLetter else { return "#" }
        return String(letter)
    }
}

/// One section of a level: a header title and the run of rows under it.
public struct Section: Sendable, Equatable {
    /// The header (`M`, `#`, `Jazz`; `Other` for rows whose template gives no text).
    public var title: String
    /// The row index (within the level) of the section's first row.
    public var start: Int
    /// How many rows the section holds.
    public var count: Int

    /// Creates a section.
    public init(title: String, start: Int, count: Int) {
        self.title = title
        self.start = start
        self.count = count
    }
}

/// A level's sections and its section index, computed once from every row of the level.
///
/// A section is a run of consecutive rows with the same key, in display order (sorted when the
/// level's kind has a `sort:`, see ``Presenter/order(of:)``), so a level sorted by its key has one
/// section per key, and an unsorted one shows a key again where it comes back. Section starts are
/// display positions; the rows' TreePaths still name their places in the data. The index
/// (`index: true`) lists each key once, in first-seen order, with the row of its first section.
public struct Sections: Sendable, Equatable {
    /// The title given to rows whose section template renders empty.
    public static let otherTitle = "Other"

    /// Every section, in row order; together they cover the level's rows exactly.
    public var sections: [Section]
    /// The jump bar's entries (each key once, first-seen order, with its first row), or `nil`
    /// when the schema does not ask for an index.
    public var index: [Section]?

    /// Creates sections.
    public init(sections: [Section], index: [Section]?) {
        self.sections = sections
        self.index = index
    }

    /// Groups `keys` (one per row, in row order) into runs.
    /// - Complexity: O(rows).
    public init(keys: some Sequence<String>, index wantsIndex: Bool) {
        var sections: [Section] = []
        for (row, raw) in keys.enumerated() {
            let key = raw.isEmpty ? Self.otherTitle : raw
            if let last = sections.last, last.title == key {
                sections[sections.count - 1].count += 1
            } else {
                sections.append(Section(title: key, start: row, count: 1))
            }
        }
        self.sections = sections
        guard wantsIndex else {
            index = nil
            return
        }
        var seen = Set<String>()
        var entries: [Section] = []
        for s in sections where seen.insert(s.title).inserted {
            entries.append(Section(title: s.title, start: s.start, count: s.count))
        }
        index = entries
    }

    /// The position in ``sections`` of the section holding row `row`.
    /// - Complexity: O(log sections).
    public func section(containing row: Int) -> Int? {
        guard let first = sections.first, row >= first.start else { return nil }
        var lo = 0, hi = sections.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if sections[mid].start <= row { lo = mid } else { hi = mid - 1 }
        }
        let s = sections[lo]
        return row < s.start + s.count ? lo : nil
    }

    /// The sections that begin at rows `range` (the headers a window of rows shows).
    /// - Complexity: O(log sections + headers).
    public func starting(in range: Range<Int>) -> [Section] {
        guard let k = section(containing: range.lowerBound) else { return [] }
        var out: [Section] = []
        var i = sections[k].start == range.lowerBound ? k : k + 1
        while i < sections.count, sections[i].start < range.upperBound {
            out.append(sections[i])
            i += 1
        }
        return out
    }
}

extension Presenter {
    /// The section rule of the level under `id` and whether it has an index: those of the kind of
    /// the level's first row (a level's rows share a kind, or take the first row's rule).
    /// - Complexity: O(depth).
    public func sectionRule(of id: NodeID) -> (rule: SectionRule, index: Bool)? {
        guard !schema.kinds.isEmpty else { return nil }
        let children = source.children(of: id)
        guard let first = children.first, let t = kind(of: first), let rule = t.section else { return nil }
        return (rule, t.index)
    }

    /// The section key of row `child` under `rule`.
    public func sectionKey(of child: NodeID, rule: SectionRule, locale: Locale = .current) -> String {
        switch rule {
        case .template(let template):
            return template.render { lookup($0, of: child) }.trimmingCharacters(in: .whitespaces)
        case .initial:
            let title = title(of: child, template: kind(of: child))
            return SectionRule.initial(of: SortValue.dropArticle(title, schema.sortIgnoring), locale: locale)
        }
    }

    /// The sections of the level under `id` in display order, or `nil` when its rows' kind has no
    /// `section:`.
    /// Every front end calls this (web, terminal, `ls`); callers of wide levels cache the result
    /// per data revision.
    /// - Complexity: O(rows of the level × template size).
    public func sections(of id: NodeID, locale: Locale = .current) -> Sections? {
        guard let (rule, index) = sectionRule(of: id) else { return nil }
        let children = source.children(of: id)
        if let listed = listedIndices(of: id) {
            // A filtered level (or one a reader sees part of) is sectioned as it lists its rows.
            return Sections(keys: listed.lazy.map { sectionKey(of: children[$0], rule: rule, locale: locale) }, index: index)
        }
        let order = order(of: id)
        return Sections(
            keys: children.indices.lazy.map { sectionKey(of: children[order?.dataIndex(at: $0) ?? $0], rule: rule, locale: locale) },
            index: index)
    }
}
