import DrillDownCore
import Foundation

/// The Sort menu's fields of recently shown levels (``Presenter/sortFields(of:sample:)``), per data
/// revision: sampling a level's rows for their keys cost a first view of a 1M-row level's page
/// about a third of its CPU, for the same answer on every page of the level. An edit bumps the
/// revision, so a new key shows on the next page.
final class SortFieldCache: @unchecked Sendable {
    private let lock = NSLock()
    private var revision = -1
    private var fields: [NodeID: [String]] = [:]
    /// The levels kept at most per revision (the cache starts again when full).
    private let capacity = 256

    /// The fields of the level under `id` at `revision`, sampled by `presenter` when not kept yet.
    func fields(of id: NodeID, presenter: Presenter, revision: Int) -> [String] {
        if let hit = lock.withLock({ self.revision == revision ? fields[id] : nil }) { return hit }
        let made = presenter.sortFields(of: id)
        lock.withLock {
            if self.revision != revision || fields.count >= capacity {
                self.revision = revision
                fields = [:]
            }
            fields[id] = made
        }
        return made
    }
}
