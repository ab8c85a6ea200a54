import Dispatch
import DrillDownCore
import Foundation
import Testing

@testable import DrillDownWeb

/// Requests that block on a database never take the threads the rest of the process needs: every
/// read blocked on the ``BlockingExecutor`` gets a thread of its own at once, however many more
/// than the cores. (On Linux a concurrent Dispatch queue shares the cooperative threads and adds
/// one about every second while they block: 8 blocked reads took seconds to start, and a task
/// started meanwhile waited 0.8–1.8 s; in CI `/healthz` went unanswered for a whole `--db-timeout`.)
@Suite struct BlockingExecutorTests {
    @Test func everyBlockedReadHasAThreadOfItsOwnAtOnce() async {
        let blockers = 4 * max(2, ProcessInfo.processInfo.activeProcessorCount)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        // Started on the executor itself, and counted on a thread of the test's own: neither
        // needs one of the cooperative threads, which other suites running in parallel may hold.
        for _ in 0..<blockers {
            Task(executorPreference: BlockingExecutor.shared) {
                started.signal()
                _ = release.wait(timeout: .now() + 30)
            }
        }
        let (running, waited) = await BlockingWork.run(label: "test.count") { () -> (Int, Duration) in
            let begin = ContinuousClock.now
            var running = 0
            while running < blockers, started.wait(timeout: .now() + 10) == .success { running += 1 }
            return (running, ContinuousClock.now - begin)
        }
        for _ in 0..<blockers { release.signal() }
        #expect(running == blockers, "only \(running) of \(blockers) blocked reads ever started")
        #expect(waited < .seconds(1.5), "\(blockers) blocked reads took \(waited) to all have a thread")
    }
}
