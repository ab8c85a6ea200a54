import Dispatch
import Foundation

/// Runs password checks (bcrypt: about 60 ms of one core each at ``UsersFile/bcryptCost``) off the
/// threads that serve requests, on `width` serial queues of their own (half the cores, at least
/// one), with at most `maxWaiting` checks admitted at once. A flood of sign-ins thus takes at most
/// `width` cores and a bounded queue: pages keep being served on the event loops and the other
/// cores, and a sign-in past the queue is answered at once (503 with `Retry-After`).
///
/// ```swift
/// let checks = PasswordChecks()
/// let user = await checks.run { file.signIn(name, password: password) }   // nil: the queue is full
/// ```
final class PasswordChecks: @unchecked Sendable {
    /// How many checks run at once.
    let width: Int
    /// How many checks may be admitted (running or waiting) at once.
    let maxWaiting: Int
    private let queues: [DispatchQueue]
    private let lock = NSLock()
    private var admitted = 0
    private var next = 0

    /// Checks on `width` queues, at most `maxWaiting` admitted at once.
    init(width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), maxWaiting: Int = 64) {
        self.width = max(1, width)
        self.maxWaiting = max(1, maxWaiting)
        queues = (0 ..< max(1, width)).map { DispatchQueue(label: "drilldown.password-checks.\($0)") }
    }

    /// What `check` returns, run on one of the queues; `nil` (without running it) when
    /// `maxWaiting` checks are already admitted.
    func run<T: Sendable>(_ check: @escaping @Sendable () -> T) async -> T? {
        let queue: DispatchQueue? = lock.withLock {
            guard admitted < maxWaiting else { return nil }
            admitted += 1
            next = (next + 1) % queues.count
            return queues[next]
        }
        guard let queue else { return nil }
        defer { lock.withLock { admitted -= 1 } }
        let result: T = await withCheckedContinuation { continuation in queue.async { continuation.resume(returning: check()) } }
        return result
    }
}
