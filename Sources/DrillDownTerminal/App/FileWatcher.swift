import DrillDownCore
import Foundation

/// Polls a ``WatchedFile`` from the event loop (at most every ``interval`` nanoseconds, a `stat`
/// per file) and reloads it on a background thread when it changed, so a huge file never blocks
/// the keys; `notify` wakes the event loop when the new data is ready. (Read-only browsing: an
/// editable browser follows its ``DocumentModel``.)
final class FileWatcher: @unchecked Sendable {
    /// How often the files are checked: 400 ms.
    static let interval: UInt64 = 400_000_000

    let file: WatchedFile
    let notify: @Sendable () -> Void
    private let lock = NSLock()
    private var stamps: [FileStamp?]
    private var lastCheck: UInt64
    private var loading = false
    private var loaded: Result<Presenter, any Error>?

    init(_ file: WatchedFile, notify: @escaping @Sendable () -> Void) {
        self.file = file
        self.notify = notify
        stamps = file.paths.map(FileStamp.of)
        lastCheck = FrameTrace.now()
    }

    /// Checks the files if the interval has passed and starts a reload when they changed.
    func check() {
        let now = FrameTrace.now()
        guard now - lastCheck >= Self.interval else { return }
        lastCheck = now
        let current = file.paths.map(FileStamp.of)
        lock.lock()
        guard current != stamps, !loading else {
            lock.unlock()
            return
        }
        stamps = current
        loading = true
        lock.unlock()
        Thread { [self] in
            let result = Result { try file.reload() }
            lock.lock()
            loading = false
            loaded = result
            lock.unlock()
            notify()
        }.start()
    }

    /// The data read since the last call, if a reload finished.
    func take() -> Result<Presenter, any Error>? {
        lock.lock()
        defer {
            loaded = nil
            lock.unlock()
        }
        return loaded
    }
}
