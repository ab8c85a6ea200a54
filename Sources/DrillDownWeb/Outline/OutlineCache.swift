import DrillDownCore
import Foundation

/// The few most recently used outlines, keyed by their URL state, so paging through one outline
/// (or a script fetching it) does not rebuild it per request.
///
/// Expand-all (O(n)) is built once per revision and kept apart from the recent states: an
/// `all=1&closed=…` state is a copy of it with the listed paths collapsed, O(n) bytes copied
/// plus O(closed × depth × log width), so a client sending ever new `closed` lists cannot make
/// the server walk the whole tree per request.
///
/// An outline holds a few bytes per node; the capacity bounds the memory this takes.
final class OutlineCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(state: OutlineState, outline: Outline)] = []
    private var expandedAll: Outline?
    private var revision = 0
    private let capacity: Int
    /// How many times the whole tree was expanded (tests check it stays at one per revision).
    private(set) var expandAllBuilds = 0

    /// A cache of at most `capacity` outlines.
    init(capacity: Int) { self.capacity = capacity }

    /// The outline of `state` over the data at `revision`, built on a miss; a newer revision
    /// empties the cache.
    func outline(_ state: OutlineState, presenter: Presenter, revision: Int = 0) -> Outline {
        lock.withLock {
            if revision != self.revision {
                entries.removeAll()
                expandedAll = nil
                self.revision = revision
            }
        }
        if let hit = lookup(state) { return hit }
        let built = state.all ? state.outline(of: presenter.source, expandedAll: expandedAll(presenter: presenter, revision: revision)) : state.outline(of: presenter)
        lock.withLock {
            entries.removeAll { $0.state == state }
            entries.insert((state, built), at: 0)
            if entries.count > capacity { entries.removeLast() }
        }
        return built
    }

    /// The fully expanded outline of `revision`, built on first use.
    private func expandedAll(presenter: Presenter, revision: Int) -> Outline {
        if let cached = lock.withLock({ expandedAll }) { return cached }
        var outline = Outline(presenter: presenter)
        outline.expandAll()
        lock.withLock {
            expandAllBuilds += 1
            if revision == self.revision { expandedAll = outline }
        }
        return outline
    }

    private func lookup(_ state: OutlineState) -> Outline? {
        lock.withLock {
            guard let i = entries.firstIndex(where: { $0.state == state }) else { return nil }
            let entry = entries.remove(at: i)
            entries.insert(entry, at: 0)
            return entry.outline
        }
    }
}
