import Dispatch
import Foundation
import Testing

@testable import DrillDownWeb

/// Requests that block on a database never starve the rest of the process: a task started while
/// more reads than cores are blocked on the ``BlockingExecutor`` runs at once (on Linux a
/// concurrent Dispatch queue shares the cooperative threads, and held such a task back 0.8–1.8 s).
@Suite struct BlockingExecutorTests {
    @Test func aTaskRunsAtOnceWhileMoreReadsThanCoresAreBlocked() async {
        let blockers = 2 * max(2, ProcessInfo.processInfo.activeProcessorCount)
        let release = DispatchSemaphore(value: 0)
        for _ in 0..<blockers {
            Task.detached {
                await withTaskExecutorPreference(BlockingExecutor.shared) {
                    _ = release.wait(timeout: .now() + 10)
                }
            }
        }
        let clock = ContinuousClock()
        let begin = clock.now
        let probe = await Task.detached { clock.now - begin }.value
        for _ in 0..<blockers { release.signal() }
        #expect(probe < .milliseconds(300), "a task waited \(probe) for a thread while \(blockers) blocking reads held theirs")
    }
}
