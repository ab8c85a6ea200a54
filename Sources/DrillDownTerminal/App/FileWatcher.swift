#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import DrillDownCore
import Foundation

/// Polls a ``WatchedFile`` from the event loop (at most every ``interval`` nanoseconds, a `stat`
/// per file) and reloads it on a background thread when it changed, so a huge file never blocks
/// the keys; `notify` wakes the event loop when the new data is ready.
final class FileWatcher: @unchecked Sendable {
    /// What identifies one version of a file (shared with the document model's writes).
    typealias Stamp = FileStamp

    /// How often the files are checked: 400 ms.
    static let interval: UInt64 = 400_000_000

    let file: WatchedFile
    let notify: @Sendable () -> Void
    private let lock = NSLock()
    private var stamps: [Stamp?]
    private var lastCheck: UInt64
    private var loading = false
    private var saving = false
    private var generation = 0
    private var loaded: Result<Presenter, any Error>?

    init(_ file: WatchedFile, notify: @escaping @Sendable () -> Void) {
        self.file = file
        self.notify = notify
        stamps = file.paths.map(Self.stamp)
        lastCheck = FrameTrace.now()
    }

    static func stamp(_ path: String) -> Stamp? { FileStamp.of(path) }

    /// Checks the files if the interval has passed and starts a reload when they changed.
    func check() {
        let now = FrameTrace.now()
        guard now - lastCheck >= Self.interval else { return }
        lastCheck = now
        let current = file.paths.map(Self.stamp)
        lock.lock()
        guard current != stamps, !loading, !saving else {
            lock.unlock()
            return
        }
        stamps = current
        loading = true
        let started = generation
        lock.unlock()
        Thread { [self] in
            let result = Result { try file.reload() }
            lock.lock()
            loading = false
            if started == generation { loaded = result }
            lock.unlock()
            notify()
        }.start()
    }

    /// Stops looking for changes while the browser writes the file itself.
    func beginSaving() {
        lock.lock()
        saving = true
        lock.unlock()
    }

    /// Whether the files differ from the version last read or written here, or a reload of a
    /// newer version is under way or read but not yet shown: writing now would put an older copy
    /// over someone else's change.
    func changedElsewhere() -> Bool {
        let current = file.paths.map(Self.stamp)
        lock.lock()
        defer { lock.unlock() }
        return loading || loaded != nil || current != stamps
    }

    /// Records the files as one of the browser's own writes left them.
    func recordOwnWrite() {
        let current = file.paths.map(Self.stamp)
        lock.lock()
        stamps = current
        lock.unlock()
    }

    /// Looks for changes again after the browser's writes. When a write was refused because the
    /// file changed elsewhere (`conflict`), the change is still to be read; otherwise the files
    /// are recorded as the writes left them and a reload already running is dropped, since it may
    /// have read an older version.
    func endSaving(conflict: Bool = false) {
        let current = file.paths.map(Self.stamp)
        lock.lock()
        if conflict {
            // Read the file again whatever its stamps say now: another writer may have written
            // between one of our own writes and its recording, which would leave the stamps
            // matching a version this browser never read (and every later save refused).
            stamps = stamps.map { _ in nil }
        } else {
            stamps = current
            generation += 1
        }
        saving = false
        lock.unlock()
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
