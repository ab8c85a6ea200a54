import Dispatch
import Foundation

/// Bounds a graceful shutdown: from the first SIGTERM or SIGINT, the server has `seconds` to close
/// its connections (which ServiceLifecycle waits for); if it has not returned by then, the
/// process says so and exits with status 1. Whatever a request is stuck in (a database that does
/// not answer, a stream whose client never reads), the process ends when asked.
///
/// ```swift
/// let deadline = ShutdownDeadline(seconds: 10)
/// defer { deadline.cancel() }
/// try await app.runService()
/// ```
final class ShutdownDeadline: @unchecked Sendable {
    private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "drilldown.shutdown")
    /// Set by ``cancel()`` (read on `queue`).
    private var cancelled = false

    init(seconds: Double) {
        let queue = queue
        sources = [SIGTERM, SIGINT].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: queue)
            source.setEventHandler {
                queue.asyncAfter(deadline: .now() + seconds) { [weak self] in
                    guard let self, !self.cancelled else { return }
                    FileHandle.standardError.write(Data("drilldown: shutdown took longer than \(seconds) s; exiting now\n".utf8))
                    exit(1)
                }
            }
            source.resume()
            return source
        }
    }

    /// Stops watching (the server has returned in time).
    func cancel() {
        queue.sync {
            cancelled = true
            for source in sources { source.cancel() }
        }
    }
}
