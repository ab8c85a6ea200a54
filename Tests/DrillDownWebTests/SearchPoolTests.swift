import Foundation
import Testing
@testable import DrillDownWeb

@Suite("Search pool")
struct SearchPoolTests {
    /// Counts how many jobs run at once.
    final class Gauge: @unchecked Sendable {
        let lock = NSLock()
        var now = 0, most = 0, done = 0
        func enter() { lock.withLock { now += 1; most = max(most, now) } }
        func leave() { lock.withLock { now -= 1; done += 1 } }
        var peak: Int { lock.withLock { most } }
        var finished: Int { lock.withLock { done } }
    }

    /// When the last of `expected` searches was handed to the pool.
    final class Submissions: @unchecked Sendable {
        let lock = NSLock()
        let expected: Int
        var count = 0, last = Date.distantFuture
        init(_ expected: Int) { self.expected = expected }
        func add() { lock.withLock { count += 1; if count == expected { last = Date() } } }
        /// Whether all were handed over more than `seconds` ago.
        func allOlderThan(_ seconds: TimeInterval) -> Bool { lock.withLock { Date().timeIntervalSince(last) > seconds } }
    }

    @Test("runs searches side by side, never more than its width at once")
    func width() async throws {
        let pool = SearchPool(width: 3)
        let gauge = Gauge()
        let submissions = Submissions(12)
        // Each search holds its thread until three have run at once (not for a fixed time, which
        // on a busy machine may end before a third thread starts). A failure is bounded 30 s after
        // the last search was handed over: in a parallel test run the tasks handing them over can
        // wait long for one of Swift's threads.
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0 ..< 12 {
                group.addTask {
                    submissions.add()
                    return try await pool.run { _ in
                        gauge.enter()
                        while gauge.peak < 3, !submissions.allOlderThan(30) { Thread.sleep(forTimeInterval: 0.001) }
                        gauge.leave()
                        return i
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == Array(0 ..< 12))
        #expect(gauge.peak <= 3)  // never more than its width
        #expect(gauge.peak == 3)  // and side by side
        #expect(gauge.finished == 12)
        #expect(pool.pending == 0)
    }

    @Test("a cancelled task stops its running search and never starts its queued one")
    func cancellation() async throws {
        let pool = SearchPool(width: 1)
        let stopped = Gauge()
        let queuedRan = Gauge()
        let started = Gauge()
        let running = Task {
            try await pool.run { isCancelled in
                started.enter()
                let deadline = Date().addingTimeInterval(10)
                while !isCancelled(), Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                if isCancelled() { stopped.enter() }
                return 1
            }
        }
        while started.peak == 0 { try await Task.sleep(for: .milliseconds(2)) }
        let queued = Task { try await pool.run { _ in queuedRan.enter(); return 2 } }
        // Cancelled once it waits in the queue behind the running search (not after a fixed 20 ms).
        let deadline = ContinuousClock.now + .seconds(30)
        while pool.pending < 2, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(pool.pending == 2, "the second search is queued")
        queued.cancel()
        running.cancel()
        let start = Date()
        await #expect(throws: CancellationError.self) { try await running.value }
        await #expect(throws: CancellationError.self) { try await queued.value }
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(stopped.peak == 1)
        #expect(queuedRan.peak == 0)
        // The pool still answers afterwards.
        #expect(try await pool.run { _ in 42 } == 42)
    }
}
