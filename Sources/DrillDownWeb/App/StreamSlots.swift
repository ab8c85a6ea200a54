import Foundation

/// A fixed number of slots for long-lived responses (the `/events` streams), so open pages
/// cannot hold every connection and file descriptor the process has, and one client cannot
/// hold every slot: each client address and each browser session gets a share.
///
/// ```swift
/// let slots = StreamSlots(capacity: 64, perAddress: 8, perSession: 4)
/// let a = try slots.acquire(address: "192.0.2.7", session: id).get()   // released by a.release() or deinit
/// ```
final class StreamSlots: @unchecked Sendable {
    /// One taken slot; it frees itself when released (``release()`` or deinit), however its stream ends.
    final class Slot: @unchecked Sendable {
        let owner: StreamSlots
        let address: String?
        let session: String?
        private let lock = NSLock()
        private var held = true

        init(owner: StreamSlots, address: String?, session: String?) {
            self.owner = owner
            self.address = address
            self.session = session
        }

        /// Frees the slot now (once; later calls do nothing).
        func release() {
            let was = lock.withLock { () -> Bool in
                defer { held = false }
                return held
            }
            if was { owner.release(self) }
        }

        deinit { release() }
    }

    /// Why a slot was refused: the share the client already holds, or the whole process's.
    enum Refusal: Error, Equatable {
        /// The session (`dd_session` cookie) holds ``StreamSlots/perSession`` slots.
        case session
        /// The client address holds ``StreamSlots/perAddress`` slots.
        case address
        /// All ``StreamSlots/capacity`` slots are taken.
        case full
    }

    private let lock = NSLock()
    private var used = 0
    private var byAddress: [String: Int] = [:]
    private var bySession: [String: Int] = [:]
    /// The most slots taken at once.
    let capacity: Int
    /// The most slots one client address takes at once.
    let perAddress: Int
    /// The most slots one session takes at once.
    let perSession: Int

    /// Slots with a global cap; the per-client caps default to none (the global one).
    init(capacity: Int, perAddress: Int? = nil, perSession: Int? = nil) {
        self.capacity = max(0, capacity)
        self.perAddress = max(0, perAddress ?? capacity)
        self.perSession = max(0, perSession ?? capacity)
    }

    /// A slot for a client at `address` in `session` (either `nil` when unknown: not counted),
    /// or why not. The client's own shares are checked first, so a client over its share is
    /// told so even when the process is full too.
    func acquire(address: String?, session: String?) -> Result<Slot, Refusal> {
        let refusal: Refusal? = lock.withLock {
            if let session, bySession[session, default: 0] >= perSession { return .session }
            if let address, byAddress[address, default: 0] >= perAddress { return .address }
            guard used < capacity else { return .full }
            used += 1
            if let session { bySession[session, default: 0] += 1 }
            if let address { byAddress[address, default: 0] += 1 }
            return nil
        }
        if let refusal { return .failure(refusal) }
        return .success(Slot(owner: self, address: address, session: session))
    }

    /// A slot counted against the global cap only, or `nil` when all are taken.
    func acquire() -> Slot? { try? acquire(address: nil, session: nil).get() }

    /// The slots taken now.
    var inUse: Int { lock.withLock { used } }

    fileprivate func release(_ slot: Slot) {
        lock.withLock {
            used -= 1
            if let session = slot.session { Self.decrement(&bySession, session) }
            if let address = slot.address { Self.decrement(&byAddress, address) }
        }
    }

    /// Counts one fewer for `key`, dropping it at zero so the tables hold open streams only.
    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        let left = (counts[key] ?? 1) - 1
        counts[key] = left > 0 ? left : nil
    }
}
