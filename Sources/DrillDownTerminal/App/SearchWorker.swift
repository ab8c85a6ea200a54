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

    let source: any Source
    let limit: Int
    private let lock = NSLock()
    private var pending: String?
    private var running = false
    private var finished: [Finished] = []
    private let pipeFDs: (read: Int32, write: Int32)

    /// The descriptor that becomes readable when results are ready.
    var wake: Int32 { pipeFDs.read }

    init(source: any Source, limit: Int) {
        self.source = source
        self.limit = limit
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
            _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)
        }
        pipeFDs = (fds[0], fds[1])
    }

    /// Asks for a search of `text`, replacing any query that has not started yet.
    func submit(_ text: String) {
        lock.lock()
        pending = text
        let start = !running
        running = true
        lock.unlock()
        if start { Thread { [self] in work() }.start() }
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
            guard let text = pending else {
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
            var byte: UInt8 = 1
            _ = write(pipeFDs.write, &byte, 1)
        }
    }
}
