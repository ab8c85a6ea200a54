import DrillDownCore
import Foundation

/// The sections of the levels the browser has drawn, computed once per level and presenter
/// (``Presenter/sections(of:locale:)`` reads every row of a level; drawing a frame must not).
final class SectionMemo: @unchecked Sendable {
    private let lock = NSLock()
    private var generation = -1
    private var entries: [NodeID: Sections?] = [:]

    /// The sections of the level under `node` for the presenter of `generation`.
    func sections(of node: NodeID, presenter: Presenter, generation: Int) -> Sections? {
        if let hit = lock.withLock({ () -> Sections?? in
            if generation != self.generation {
                entries.removeAll()
                self.generation = generation
            }
            return entries[node]
        }) { return hit }
        let computed = presenter.sections(of: node)
        lock.withLock {
            if generation == self.generation {
                if entries.count >= 64 { entries.removeAll() }
                entries[node] = .some(computed)
            }
        }
        return computed
    }
}
