import Foundation

/// A fixed number of slots for long-lived responses (the `/events` streams), so open pages
/// cannot hold every connection and file descriptor the process has.
///
/// ```swift
/// let slots = StreamSlots(capacity: 2)
/// let a = slots.acquire()   // a Slot; released when the last reference to it goes away
/// ```
final class StreamSlots: @unchecked Sendable {
    /// One taken slot; it frees itself when released (deinit), however its stream ends.
    final class Slot: Sendable {
        let owner: StreamSlots
        init(owner: StreamSlots) { self.owner = owner }
        deinit { owner.release() }
    }

    private let lock = NSLock()
    private var used = 0
    /// The most slots taken at once.
    let capacity: Int

    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// A slot, or `nil` when all are taken.
    func acquire() -> Slot? {
        let granted = lock.withLock {
            guard used < capacity else { return false }
            used += 1
            return true
        }
        return granted ? Slot(owner: self) : nil
    }

    /// The slots taken now.
    var inUse: Int { lock.withLock { used } }

    fileprivate func release() { lock.withLock { used -= 1 } }
}
