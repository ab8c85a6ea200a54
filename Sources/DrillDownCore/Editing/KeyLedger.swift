import Foundation

/// The outcomes of steps done under a ``StepKey`` in this process, the newest ``limit`` of them,
/// readable from any thread: a retried request is answered from here without waiting for the
/// model (which may be waiting for its database).
///
/// ```swift
/// let ledger = KeyLedger()
/// ledger.remember(StepOutcome(request: "add / title=A", paths: [[3]]), for: key)
/// try ledger.outcome(of: key)?.paths    // [[3]], marked replayed
/// ```
public final class KeyLedger: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [String: StepOutcome] = [:]
    private var order: [String] = []
    /// How many keys it remembers.
    public let limit: Int

    /// Creates an empty ledger remembering at most `limit` keys.
    public init(limit: Int = 10_000) { self.limit = limit }

    /// The outcome of an earlier step done under `key`, marked ``StepOutcome/replayed``; a key
    /// used for another request is refused (``EditError/Reason/keyReused``).
    public func outcome(of key: StepKey) throws(EditError) -> StepOutcome? {
        guard let earlier = recorded(key) else { return nil }
        return try earlier.checked(for: key)
    }

    /// The outcome kept for `key`, as it was kept, without checking its request.
    public func recorded(_ key: StepKey) -> StepOutcome? { lock.withLock { outcomes[key.key] } }

    /// Keeps `outcome` for `key`, forgetting the oldest keys past ``limit``.
    public func remember(_ outcome: StepOutcome, for key: StepKey) {
        lock.withLock {
            if outcomes.updateValue(outcome, forKey: key.key) == nil { order.append(key.key) }
            if order.count > limit {
                let old = order.prefix(order.count - limit)
                for k in old { outcomes[k] = nil }
                order.removeFirst(old.count)
            }
        }
    }

    /// Forgets `key` (its step was not stored after all, so a retry must apply it).
    public func forget(_ key: StepKey) { lock.withLock { outcomes[key.key] = nil } }

    /// How many keys it holds.
    public var count: Int { lock.withLock { outcomes.count } }
}
