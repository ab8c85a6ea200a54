import DrillDownCore
import Dispatch

/// A task executor for request handling that may block: a page of a database-backed snapshot is
/// read synchronously (the store's calls wait for the server, up to `--db-timeout`). Each job runs
/// on a serial queue of its own (see `BlockingWork`: a concurrent queue would share, on Linux,
/// the cooperative threads it is meant to spare), so a database that is slow or gone never holds
/// the threads that `/healthz`, static files and every other request need.
///
/// ```swift
/// try await withTaskExecutorPreference(BlockingExecutor.shared) { try await render(page) }
/// ```
final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = BlockingExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        BlockingWork.enqueue(label: "drilldown.blocking-read") { job.runSynchronously(on: executor) }
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }
}
