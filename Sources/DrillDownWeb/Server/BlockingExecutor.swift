import Dispatch

/// A task executor for request handling that may block: a page of a database-backed snapshot is
/// read synchronously (the store's calls wait for the server, up to `--db-timeout`). Jobs run on
/// a concurrent Dispatch queue, whose threads are not Swift's cooperative ones and grow while
/// some block, so a database that is slow or gone never holds the threads that `/healthz`, static
/// files and every other request need.
///
/// ```swift
/// try await withTaskExecutorPreference(BlockingExecutor.shared) { try await render(page) }
/// ```
final class BlockingExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = BlockingExecutor()
    private let queue = DispatchQueue(label: "drilldown.blocking-reads", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }
}
