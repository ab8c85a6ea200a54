import DrillDownCore
import Foundation

/// Runs a ``Browser`` on the real terminal: reads keys, applies them, renders and writes only
/// the cells that changed, redraws on resize, and restores the terminal however it ends.
///
/// ```swift
/// try TerminalApp(presenter: presenter).run()
/// ```
public struct TerminalApp {
    /// What to browse.
    public let presenter: Presenter
    /// Environment variables consulted: `NO_COLOR`, `DRILLDOWN_TRACE_FRAMES`.
    public let environment: [String: String]
    /// With `--editable`: the actions buttons run; `nil` browses read-only.
    public var actions: ActionSet?
    /// Writes an edited tree back to the file (atomically, in its own format).
    public var save: (@Sendable (TreeStore) throws -> Void)?
    /// The file to watch for changes made elsewhere.
    public var watched: WatchedFile?
    /// With `--editable` on a database: the store edits go through (each step committed by the
    /// store, nothing for ``save`` to write). Other writers' commits are picked up with
    /// ``EditingStore/refresh()`` while idle, and then ``reopen`` gives a store with a fresh history.
    public var store: (any EditingStore)?
    /// Opens the database store again, after another writer changed the data.
    public var reopen: (@Sendable () throws -> any EditingStore)?

    /// How long a lone Esc waits for the rest of an escape sequence.
    static let escapeTimeoutMilliseconds: Int32 = 25

    /// Creates the app.
    public init(presenter: Presenter, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.presenter = presenter
        self.environment = environment
    }

    /// Whether another writer committed to the database store: then shows the data as it is now,
    /// with a fresh store (undo history starts afresh, as after a file reload).
    func pickUpOtherWriters(_ browser: inout Browser) -> Bool {
        guard var current = browser.editor?.store, let actions = browser.editor?.actions else { return false }
        do {
            guard try current.refresh() else { return false }
            let fresh = try reopen?() ?? current
            browser.reload(Presenter(source: fresh.snapshot, schema: browser.presenter.schema))
            browser.editor = Editor(store: fresh, actions: actions)
        } catch {
            browser.reloadFailed(String(describing: error))
        }
        return true
    }

    /// Takes over the terminal until the user quits.
    public func run() throws(TerminalError) {
        let terminal = try RawTerminal()
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let trace = environment["DRILLDOWN_TRACE_FRAMES"].flatMap { FrameTrace(path: $0) }
        try terminal.enter()
        defer { terminal.restore() }
        let size = terminal.size()
        var browser =
            actions.map { Browser(presenter: store.map { Presenter(source: $0.snapshot, schema: presenter.schema) } ?? presenter, width: size.width, height: size.height, actions: $0, store: store) }
            ?? Browser(presenter: presenter, width: size.width, height: size.height)
        var renderer = Renderer(noColor: noColor)
        var decoder = KeyDecoder()
        let searches = SearchWorker(limit: Browser.searchLimit)
        let watcher = watched.map { FileWatcher($0, notify: searches.wakeUp) }
        let saver = save.map { FileSaver(save: $0, watcher: watcher, notify: searches.wakeUp) }
        defer { saver?.finish() }
        let idle: Int32 = watcher == nil && store == nil ? -1 : Int32(FileWatcher.interval / 1_000_000)
        terminal.write(renderer.render(browser.render()))
        while !browser.isFinished {
            let input = terminal.read(timeout: decoder.hasPending ? Self.escapeTimeoutMilliseconds : idle, wake: searches.wake)
            watcher?.check()
            let start = FrameTrace.now()
            var keys: [Key] = []
            var label = ""
            switch input {
            case .bytes(let bytes): keys = decoder.feed(bytes)
            case .timeout:
                keys = decoder.flush()
                if store != nil, pickUpOtherWriters(&browser) { label = "reload" }
            case .resized:
                let size = terminal.size()
                browser.resize(width: size.width, height: size.height)
                label = "resize"
            case .woken:
                for done in searches.take() {
                    browser.receiveSearch(done.text, hits: done.result.hits, total: done.result.total)
                    label = "search:\(done.text)"
                    trace?.record(label: "search-scan:\(done.text)", handle: done.nanoseconds, render: 0, write: 0, bytes: 0)
                }
                if saver?.takeRefusal() == true {
                    browser.saveRefusedAsStale()
                    label = "save-refused"
                }
                switch watcher?.take() {
                case .success(let reloaded)?:
                    // Steps no write holds yet are applied again to the newer version.
                    browser.reload(reloaded, savedThrough: saver?.savedSerial)
                    label = "reload"
                case .failure(let error)?:
                    browser.reloadFailed(String(describing: error))
                    label = "reload"
                case nil:
                    break
                }
                for failure in saver?.takeFailures() ?? [] {
                    browser.saveFailed(failure)
                    label = "save-failed"
                }
            case .closed: return
            }
            if keys.isEmpty, label.isEmpty { continue }
            for key in keys where !browser.isFinished { browser.handle(key) }
            if browser.isFinished { break }
            for effect in browser.takeEffects() {
                switch effect {
                case .copy(let text):
                    terminal.write("\u{1B}]52;c;\(Data(text.utf8).base64EncodedString())\u{07}")
                case .suspend:
                    terminal.suspend()
                    let size = terminal.size()
                    browser.resize(width: size.width, height: size.height)
                    renderer.invalidate()
                case .redraw:
                    renderer.invalidate()
                case .search(let text):
                    searches.submit(text, in: browser.source)
                case .save:
                    if let tree = browser.editor?.document?.tree {
                        if let saver { browser.saved(through: saver.savedSerial) }
                        saver?.submit(tree, serial: browser.stepSerial)
                    } else {
                        // A database store committed the step itself: its own write is not a change made elsewhere.
                        watcher?.recordOwnWrite()
                    }
                }
            }
            let handled = FrameTrace.now()
            let frame = browser.render()
            let rendered = FrameTrace.now()
            let output = renderer.render(frame)
            terminal.write(output)
            let written = FrameTrace.now()
            if !keys.isEmpty { label = keys.map(\.description).joined(separator: ",") }
            trace?.record(label: label, handle: handled - start, render: rendered - handled, write: written - rendered, bytes: output.utf8.count)
        }
    }
}
