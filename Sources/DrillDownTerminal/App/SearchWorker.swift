#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DrillDownCore
import Foundation

/// Runs searches on a background thread so typing in the search prompt never waits for a scan
/// of a large tree: only the newest query runs next, older pending ones are dropped, and each
/// finished search makes ``wake`` readable for the event loop's `poll`.
final class SearchWorker: @unchecked Sendable {
    /// A finished search.
    struct Finished {
        var text: String
        var result: SearchResult
        var nanoseconds: UInt64
    }

    let limit: Int
    private let lock = NSLock()
    private var pending: (text: String, source: any Source)?
    private var running = false
    private var finished: [Finished] = []
    private let pipeFDs: (read: Int32, write: Int32)

    /// The descriptor that becomes readable when results are ready.
    var wake: Int32 { pipeFDs.read }

    init(limit: Int) {
        self.limit = limit
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
            _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        }
        pipeFDs = (fds[0], fds[1])
    }

    /// Asks for a search of `text` in `source`, replacing any query that has not started yet.
    func submit(_ text: String, in source: any Source) {
        lock.lock()
        pending = (text, source)
        let start = !running
        running = true
        lock.unlock()
        if start { Thread { [self] in work() }.start() }
    }

    /// Makes ``wake`` readable, for other background work that reports to the event loop.
    func wakeUp() {
        var byte: UInt8 = 1
        _ = write(pipeFDs.write, &byte, 1)
    }

    /// The searches finished since the last call, oldest first.
    func take() -> [Finished] {
        lock.lock()
        defer {
            finished = []
            lock.unlock()
        }
        return finished
    }

    private func work() {
        while true {
            lock.lock()
            guard let (text, source) = pending else {
                running = false
                lock.unlock()
                return
            }
            pending = nil
            lock.unlock()
            let start = FrameTrace.now()
            let result = source.find(SearchQuery(text, limit: limit))
            let done = Finished(text: text, result: result, nanoseconds: FrameTrace.now() - start)
            lock.lock()
            finished.append(done)
            lock.unlock()
            wakeUp()
        }
    }
}
