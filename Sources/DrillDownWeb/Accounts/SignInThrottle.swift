import Foundation

/// Slows down guessing passwords: after ``freeFailures`` failed sign-ins for one account name,
/// or from one client address, within ``window`` seconds, every further attempt for it must wait
/// 2^(failures − freeFailures) seconds after the last failure (1 s, 2 s, 4 s … at most
/// ``maxDelay``), and is answered 429 with `Retry-After` meanwhile, without checking the
/// password. A successful sign-in clears the account's failures (not the address's).
///
/// Kept per process: behind a round-robin proxy of n instances an attacker gets n times the tries.
final class SignInThrottle: @unchecked Sendable {
    /// Failures allowed before delays start.
    static let freeFailures = 5
    /// Seconds after which failures are forgotten.
    static let window: TimeInterval = 15 * 60
    /// The longest delay, in seconds.
    static let maxDelay: TimeInterval = 300

    private struct Record { var failures: Int; var last: Date }
    private let lock = NSLock()
    private var records: [String: Record] = [:]

    /// Seconds the attempt for `account` from `address` must still wait; 0 when it may go ahead.
    func wait(account: String, address: String?, now: Date = Date()) -> Int {
        lock.withLock {
            keys(account, address).map { delay(records[$0], now) }.max() ?? 0
        }
    }

    /// Counts a failed attempt.
    func failed(account: String, address: String?, now: Date = Date()) {
        lock.withLock {
            if records.count > 100_000 { records = records.filter { now.timeIntervalSince($0.value.last) < Self.window } }
            for key in keys(account, address) {
                var record = records[key] ?? Record(failures: 0, last: now)
                if now.timeIntervalSince(record.last) >= Self.window { record.failures = 0 }
                record.failures += 1
                record.last = now
                records[key] = record
            }
        }
    }

    /// Clears the account's failures after it signed in.
    func succeeded(account: String) {
        lock.withLock { _ = records.removeValue(forKey: "user:" + account) }
    }

    private func keys(_ account: String, _ address: String?) -> [String] {
        ["user:" + account] + (address.map { ["addr:" + $0] } ?? [])
    }

    private func delay(_ record: Record?, _ now: Date) -> Int {
        guard let record, record.failures >= Self.freeFailures else { return 0 }
        let since = now.timeIntervalSince(record.last)
        if since >= Self.window { return 0 }
        let delay = min(Self.maxDelay, pow(2, Double(record.failures - Self.freeFailures)))
        return since >= delay ? 0 : Int((delay - since).rounded(.up))
    }
}
