import DrillDownCore
import Foundation

/// The sorted levels' display orders (``LevelOrders``) of the current data revision, shared by
/// the presenters the requests of that revision make, so a sorted level is sorted once per
/// revision and a page of it costs O(page).
final class OrderCache: @unchecked Sendable {
    private let lock = NSLock()
    private var revision = -1
    private var orders = LevelOrders()

    /// The orders of `revision`; a new revision starts an empty cache.
    func orders(at revision: Int) -> LevelOrders {
        lock.withLock {
            if revision != self.revision {
                self.revision = revision
                orders = LevelOrders()
            }
            return orders
        }
    }
}
