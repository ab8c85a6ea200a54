import DrillDownCore
import Foundation

/// The sections of recently shown levels, computed once per level and data revision (the
/// computation reads every row of the level, O(n)); a level page then costs O(log sections)
/// for its headers whatever the level's width.
final class SectionCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Key: Sections] = [:]
    /// Per level, what its pages show of the sections besides headers (the jump bar's HTML, the
    /// sections' JSON for the script): the same on every page of the level, so rendered once.
    private var decorations: [Key: Decoration] = [:]

    /// A level shown in one order: its node and its sort rule as written (`""`: the data's order).
    struct Key: Hashable {
        /// The level as `presenter` shows it: its sort rule and its filter (``Presenter/filtering(_:by:)``).
        init(level: NodeID, presenter: Presenter) {
            self.level = level
            sort = (presenter.sortRule(of: level)?.description ?? "") + (presenter.filter(of: level).map { "\u{0}" + $0.description } ?? "")
        }

        var level: NodeID
        var sort: String
    }

    /// A level's jump bar HTML and its sections as JSON for the script (`nil` when not sent).
    struct Decoration: Sendable {
        var jumpHTML: String
        var sectionsJSON: String?
    }
    private var revision = 0
    private let capacity: Int

    /// A cache of at most `capacity` levels' sections.
    init(capacity: Int = 64) { self.capacity = capacity }

    /// The sections of the level under `id` in the order `presenter` shows it, or `nil` when its
    /// rows are not sectioned.
    func sections(of id: NodeID, presenter: Presenter, revision: Int) -> Sections? {
        guard presenter.sectionRule(of: id) != nil else { return nil }
        let key = Key(level: id, presenter: presenter)
        let hit: Sections? = lock.withLock {
            if revision != self.revision {
                entries.removeAll()
                decorations.removeAll()
                self.revision = revision
            }
            return entries[key]
        }
        if let hit { return hit }
        guard let computed = presenter.sections(of: id, locale: Locale(identifier: "en_US_POSIX")) else { return nil }
        lock.withLock {
            guard revision == self.revision else { return }
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = computed
        }
        return computed
    }

    /// The decoration of the level `key` at `revision`, made by `make` on a miss.
    func decoration(of key: Key, revision: Int, make: () -> Decoration) -> Decoration {
        if let hit = lock.withLock({ revision == self.revision ? decorations[key] : nil }) { return hit }
        let made = make()
        lock.withLock {
            guard revision == self.revision else { return }
            if decorations.count >= capacity { decorations.removeAll() }
            decorations[key] = made
        }
        return made
    }
}
