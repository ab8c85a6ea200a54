import Foundation

/// The last few thousand results of a pure, costly function of a string: the HMAC of a message
/// (``CSRFTokens``): a session's writes verify the same CSRF token each time, so its HMAC is
/// computed once. Bounded: emptied when it holds ``capacity`` entries.
/// Failures (`nil`) are not kept, so made-up values cannot fill it.
final class Memo<Value>: @unchecked Sendable {
    /// The most entries kept.
    let capacity: Int
    private let lock = NSLock()
    private var entries: [String: Value] = [:]

    /// A memo of at most `capacity` entries.
    init(capacity: Int = 4096) { self.capacity = capacity }

    /// The value for `key`, made by `make` on a miss (and kept unless `nil`).
    func value(_ key: String, make: () -> Value?) -> Value? {
        if let hit = lock.withLock({ entries[key] }) { return hit }
        guard let made = make() else { return nil }
        lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = made
        }
        return made
    }
}
