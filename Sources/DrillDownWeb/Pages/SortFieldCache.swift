import DrillDownCore
import Foundation

/// The Sort menus of recently shown levels, per data revision: the fields the level's rows have
/// (``Presenter/sortFields(of:sample:)``) and the menu's HTML for each choice. Sampling a level's
/// rows for their keys cost a first view of a 1M-row level's page about a third of its CPU, and
/// writing the menu a few percent more, for the same answer on every page of the level. An edit
/// bumps the revision, so a new key shows on the next page.
final class SortFieldCache: @unchecked Sendable {
    /// A level's menu with one choice selected.
    private struct MenuKey: Hashable {
        var level: NodeID
        var current: String
        /// The hidden inputs the form carries (a filtered level's `where`s).
        var hidden: String
    }

    private let lock = NSLock()
    private var revision = -1
    private var fields: [NodeID: [String]] = [:]
    private var menus: [MenuKey: String] = [:]
    private var filterFields: [NodeID: [Field]] = [:]
    /// The levels (and menus) kept at most per revision (the cache starts again when full).
    private let capacity = 256

    /// The fields of the level under `id` at `revision`, sampled by `presenter` when not kept yet.
    func fields(of id: NodeID, presenter: Presenter, revision: Int) -> [String] {
        if let hit = lock.withLock({ self.revision == revision ? fields[id] : nil }) { return hit }
        let made = presenter.sortFields(of: id)
        lock.withLock {
            startAgainIfNeeded(revision, fields.count)
            fields[id] = made
        }
        return made
    }

    /// The fields the filter bar and facet panel offer for the level under `id`
    /// (``Presenter/fields(of:sample:)``, without data fields) at `revision`: sampled once per
    /// level and revision, as the Sort menu's are (sampling on every page was a third of a first
    /// view's instructions).
    func filterFields(of id: NodeID, presenter: Presenter, revision: Int) -> [Field] {
        if let hit = lock.withLock({ self.revision == revision ? filterFields[id] : nil }) { return hit }
        let made = presenter.fields(of: id).filter { $0.type != .data }
        lock.withLock {
            startAgainIfNeeded(revision, filterFields.count)
            filterFields[id] = made
        }
        return made
    }

    /// ``SortMenu/html(fields:current:here:hidden:)`` of the level under `id` (shown at `here`) with
    /// `current` selected and `hidden` inputs, at `revision`.
    func menu(of id: NodeID, current: SortRule?, here: String, hidden: String = "", presenter: Presenter, revision: Int) -> String {
        let key = MenuKey(level: id, current: current?.description ?? "", hidden: hidden)
        if let hit = lock.withLock({ self.revision == revision ? menus[key] : nil }) { return hit }
        let made = SortMenu.html(fields: fields(of: id, presenter: presenter, revision: revision), current: current, here: here, hidden: hidden)
        lock.withLock {
            startAgainIfNeeded(revision, menus.count)
            menus[key] = made
        }
        return made
    }

    /// Empties the cache for a new revision, or when `kept` entries fill it (call with the lock held).
    private func startAgainIfNeeded(_ revision: Int, _ kept: Int) {
        guard self.revision != revision || kept >= capacity else { return }
        self.revision = revision
        fields = [:]
        menus = [:]
        filterFields = [:]
    }
}
