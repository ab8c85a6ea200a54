import Foundation

/// Runs searches on a few threads of their own, off Swift's cooperative pool (where every
/// request handler runs), so long scans neither wait for each other one by one nor hold the
/// threads that answer pages.
///
/// At most `width` searches run at once (one per core by default); more wait in a FIFO queue.
/// A search whose request is cancelled (its client closed the connection) is flagged: it stops at
/// its next check (the core checks every few thousand nodes or 64 KiB of titles) or, still queued,
/// never starts.
///
/// ```swift
/// let pool = SearchPool(width: 2)
/// let result = try await pool.run { isCancelled in try source.find(query, until: isCancelled) }
/// ```
final class SearchPool: @unchecked Sendable {
    /// One queued or running search.
    private final class Job: @unchecked Sendable {
        /// Runs the search and hands over its result.
        let work: (_ isCancelled: () -> Bool) -> Void
        /// Hands over `CancellationError` without running (cancelled while queued).
        let abandon: () -> Void
        private let flag = NSLock()
        private var cancelledFlag = false
        init(work: @escaping (_ isCancelled: () -> Bool) -> Void, abandon: @escaping () -> Void) {
            self.work = work
            self.abandon = abandon
        }
        var isCancelled: Bool { flag.withLock { cancelledFlag } }
        func cancel() { flag.withLock { cancelledFlag = true } }
    }

    private let condition = NSCondition()
    private var queue: [Job] = []
    private var head = 0
    private var running = 0
    private var threads = 0
    /// The most searches run at once.
    let width: Int

    /// A pool running at most `width` searches at once (at least 1); threads start on demand
    /// and stay for the life of the process.
    init(width: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.width = max(1, width)
    }

    /// Runs `work` on a pool thread and returns its result. `work` gets a function that says
    /// whether the calling task was cancelled.
    /// - Throws: `CancellationError` when the task was cancelled before or while `work` ran
    ///   (whatever `work` threw then), else what `work` throws.
    func run<T: Sendable>(_ work: @escaping @Sendable (_ isCancelled: () -> Bool) throws -> T) async throws -> T {
        try Task.checkCancellation()
        let box = ResultBox<T>()
        let job = Job(work: { isCancelled in box.set(Result { try work(isCancelled) }) },
                      abandon: { box.set(.failure(CancellationError())) })
        let result: Result<T, any Error> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
                box.onSet { continuation.resume(returning: $0) }
                submit(job)
            }
        } onCancel: {
            job.cancel()
        }
        if job.isCancelled { throw CancellationError() }
        return try result.get()
    }

    /// Searches running or queued now.
    var pending: Int { condition.withLock { running + queue.count - head } }

    private func submit(_ job: Job) {
        condition.lock()
        queue.append(job)
        if threads < width, threads < running + queue.count - head {
            threads += 1
            let thread = Thread { [unowned self] in self.serve() }
            thread.name = "drilldown-search"
            thread.start()
        }
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while head == queue.count { condition.wait() }
            let job = queue[head]
            head += 1
            if head > 64, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            running += 1
            condition.unlock()
            if job.isCancelled {
                job.abandon()
            } else {
                job.work { job.isCancelled }
            }
            condition.lock()
            running -= 1
            condition.unlock()
        }
    }
}

/// A result handed from one thread to a waiting task, whichever of the two comes first; the
/// first result set is the one kept.
final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Result<T, any Error>?
    private var waiter: ((Result<T, any Error>) -> Void)?
    private var isSet = false

    func set(_ result: Result<T, any Error>) {
        lock.lock()
        guard !isSet else { return lock.unlock() }
        isSet = true
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter(result)
            return
        }
        value = result
        lock.unlock()
    }

    func onSet(_ body: @escaping (Result<T, any Error>) -> Void) {
        lock.lock()
        if let value {
            lock.unlock()
            body(value)
            return
        }
        waiter = body
        lock.unlock()
    }

    /// The result, once set.
    var result: Result<T, any Error> {
        get async { await withCheckedContinuation { continuation in onSet { continuation.resume(returning: $0) } } }
    }
}
