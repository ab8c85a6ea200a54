import Dispatch

/// Work that may block (a wait for a database server, a file's `fsync`) run off Swift's
/// cooperative threads, on a thread that Dispatch adds while others block.
///
/// On Linux the cooperative threads are the default root queue's, as many as the cores, and a
/// custom *concurrent* queue runs its blocks on that same root queue: work blocked there leaves
/// the process's tasks (`/healthz` among them) without a thread until Dispatch adds one, about a
/// second later (measured: two blocked jobs on a 2-core machine held a new task back 0.8–1.8 s,
/// and a whole `--db-timeout` in CI). A *serial* queue runs on the overcommitting root queue,
/// which starts a thread at once when its others are blocked, so each job here gets a serial
/// queue of its own.
///
/// ```swift
/// let answer = await BlockingWork.run(label: "drilldown.readiness") { database.ping() }
/// ```
public enum BlockingWork {
    /// Runs `job` on a thread of its own (a new serial queue named `label`), never on one of
    /// Swift's cooperative threads.
    public static func enqueue(label: String, _ job: @escaping @Sendable () -> Void) {
        DispatchQueue(label: label).async(execute: job)
    }

    /// `body`'s value, computed by ``enqueue(label:_:)``; the caller's task waits without
    /// holding a thread.
    public static func run<T: Sendable>(label: String, _ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            enqueue(label: label) { continuation.resume(returning: body()) }
        }
    }
}
