import Foundation

/// A row's value under a ``SortRule``, made once per row so that sorting compares cheap keys.
///
/// Numbers come first (compared numerically), then text (compared folded: case, accents and
/// width ignored for the locale, a leading article dropped), then rows without a value.
public enum SortValue: Sendable, Hashable, Comparable {
    /// A value that reads as a number.
    case number(Double)
    /// Folded text.
    case text(String)
    /// No value (an absent field, an empty template).
    case missing

    /// The sort value of `raw`: a number when it reads as one, else text folded for `locale`
    /// after dropping the first of `ignoring` (ASCII case ignored) that it starts with.
    /// - Complexity: O(length of `raw`).
    public init(_ raw: String?, ignoring articles: [String] = [], locale: Locale = Locale(identifier: "en_US_POSIX")) {
        guard let raw else {
            self = .missing
            return
        }
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty {
            self = .missing
        } else if let n = Double(trimmed), n.isFinite {
            self = .number(n)
        } else {
            self = .text(Self.fold(Self.dropArticle(trimmed, articles), locale: locale))
        }
    }

    /// `text` without the first of `articles` it starts with (ASCII case ignored), unless nothing
    /// would be left: `The Dave Brubeck Quartet` → `Dave Brubeck Quartet`.
    public static func dropArticle(_ text: String, _ articles: [String]) -> String {
        for article in articles where !article.isEmpty && text.count > article.count {
            if text.prefix(article.count).lowercased() == article.lowercased() {
                return String(text.dropFirst(article.count)).trimmingCharacters(in: .whitespaces)
            }
        }
        return text
    }

    /// Text folded for comparison: case, diacritics and width ignored.
    static func fold(_ text: String, locale: Locale) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: locale).lowercased()
    }

    public static func < (a: SortValue, b: SortValue) -> Bool {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y
        case (.text(let x), .text(let y)): return x < y
        case (.number, _): return true
        case (.text, .missing): return true
        default: return false
        }
    }
}
