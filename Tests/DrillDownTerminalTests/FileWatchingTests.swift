import DrillDownCore
import Foundation
import Testing
@testable import DrillDownTerminal

@Suite("Watching and saving the browsed file")
struct FileWatchingTests {
    func temporaryFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("dd-watch-\(UUID().uuidString).txt").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Polls `read` until it gives a value; the 30 s deadline only bounds a failure.
    func waitFor<T>(_ read: () -> T?) -> T? {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if let value = read() { return value }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }

    @Test("a change made elsewhere is reloaded in the background; the browser's own writes are not")
    func reloadsChangesMadeElsewhere() throws {
        let path = try temporaryFile("one")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reloads = LockedCounter()
        let file = WatchedFile(paths: [path]) {
            reloads.increment()
            return try presenter(seed000)
        }
        let watcher = FileWatcher(file, notify: {})
        let saver = FileSaver(save: { _ in try "two, written by the browser".write(toFile: path, atomically: true, encoding: .utf8) }, watcher: watcher, notify: {})
        saver.submit(seed000.tree, serial: 1)
        saver.finish()
        // Past the interval, so check() really looks at the file (it looks at most every interval).
        Thread.sleep(forTimeInterval: Double(FileWatcher.interval) / 1e9 + 0.05)
        watcher.check()
        // check() decides at once; a reload it started would show as under way until taken.
        #expect(!watcher.changedElsewhere(), "the browser's own write started a reload")
        #expect(watcher.take() == nil)
        #expect(reloads.value == 0)

        try "three, written elsewhere".write(toFile: path, atomically: true, encoding: .utf8)
        let result = waitFor { () -> Result<Presenter, any Error>? in
            watcher.check()   // starts the reload once the interval has passed
            return watcher.take()
        }
        #expect(result != nil)
        #expect(reloads.value == 1)
    }

    @Test("a failed write is reported and finish() waits for the writes")
    func reportsFailures() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "disk full" } }
        let saver = FileSaver(save: { _ in throw Refused() }, watcher: nil, notify: {})
        saver.submit(seed000.tree, serial: 1)
        saver.finish()
        #expect(saver.takeFailures() == ["disk full"])
        #expect(saver.takeFailures().isEmpty)
    }
}

/// A counter shared with a background thread.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
