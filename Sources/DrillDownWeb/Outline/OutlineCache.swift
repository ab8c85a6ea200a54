import DrillDownCore
import Foundation

/// The few most recently used outlines, keyed by their URL state, so paging through one outline
/// (or a script fetching it) does not rebuild it per request.
///
/// An outline holds a few bytes per node; the capacity bounds the memory this takes.
final class OutlineCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(state: OutlineState, outline: Outline)] = []
    private var revision = 0
    private let capacity: Int

    /// A cache of at most `capacity` outlines.
    init(capacity: Int) { self.capacity = capacity }

    /// The outline of `state` over the data at `revision`, built on a miss; a newer revision
    /// empties the cache.
    func outline(_ state: OutlineState, source: any Source, revision: Int = 0) -> Outline {
        lock.withLock {
            if revision != self.revision {
                entries.removeAll()
                self.revision = revision
            }
        }
        if let hit = lookup(state) { return hit }
        let built = state.outline(of: source)
        lock.withLock {
            entries.removeAll { $0.state == state }
            entries.insert((state, built), at: 0)
            if entries.count > capacity { entries.removeLast() }
        }
        return built
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
