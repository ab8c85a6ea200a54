import Dispatch

/// A serial executor on a Dispatch queue of its own, for an actor whose work may block (a
/// ``DocumentModel`` over a database store waits for the server synchronously): the waiting
/// happens on the queue's thread, never on one of Swift's cooperative threads, so a slow or
/// absent database cannot starve the rest of the process (two cooperative threads on a 2-core
/// machine, which every request and `/healthz` need).
///
/// ```swift
/// actor Model {
///     let executor = QueueExecutor(label: "model")
///     nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
/// }
/// ```
public final class QueueExecutor: SerialExecutor, @unchecked Sendable {
    let queue: DispatchQueue

    /// Creates an executor on a new serial queue named `label`.
    public init(label: String) { queue = DispatchQueue(label: label) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }
}
