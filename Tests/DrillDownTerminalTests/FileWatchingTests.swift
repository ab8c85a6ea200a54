import DrillDownCore
import Foundation
import Testing
@testable import DrillDownTerminal

@Suite("Following the browsed file and the model")
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

    @Test("a change made elsewhere is reloaded in the background")
    func reloadsChangesMadeElsewhere() throws {
        let path = try temporaryFile("one")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reloads = LockedCounter()
        let file = WatchedFile(paths: [path]) {
            reloads.increment()
            return try presenter(seed000)
        }
        let watcher = FileWatcher(file, notify: {})
        try "two, written elsewhere".write(toFile: path, atomically: true, encoding: .utf8)
        let result = waitFor { () -> Result<Presenter, any Error>? in
            watcher.check()   // starts the reload once the interval has passed
            return watcher.take()
        }
        #expect(result != nil)
        #expect(reloads.value == 1)
    }

    @Test("the model link runs edits in the background, finish() waits for them, and a refused step comes back in words")
    func modelLink() async throws {
        let woken = LockedCounter()
        let model = DocumentModel(document: EditableDocument(tree: seed000.tree))
        let link = ModelLink(model: model, notify: { woken.increment() })
        link.submit(EditRequest(serial: 1, kind: .changes([.updateTitle([0], title: "First")]), done: "Renamed", open: false))
        link.submit(EditRequest(serial: 2, kind: .changes([.delete([9])]), done: "Deleted", open: false))
        await Task.detached { link.finish() }.value
        let news = link.take()
        #expect(news.done.map(\.0.serial).sorted() == [1, 2])
        for (request, outcome) in news.done {
            switch (request.serial, outcome) {
            case (1, .applied(let paths)): #expect(paths == [[0]])
            case (2, .failed(let error)): #expect(error.description.contains("9"), "\(error)")
            default: Issue.record("unexpected outcome \(outcome) for \(request.serial)")
            }
        }
        #expect(model.versionedSource.source.title(of: model.versionedSource.source.children(of: model.versionedSource.source.root)[0]) == "First")
        #expect(woken.value >= 2)
        #expect(link.take().done.isEmpty, "each outcome is taken once")
    }
}

/// A counter shared with a background thread.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
