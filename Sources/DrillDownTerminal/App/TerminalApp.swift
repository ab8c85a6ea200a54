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
    /// With `--editable`: the model every edit goes through (it saves each step and follows
    /// other writers); `nil` browses read-only.
    public var model: DocumentModel?
    /// What the user may do (`browse --user NAME --users FILE`): a viewer browses read-only, and
    /// an edit outside the subtrees the user may change is refused with the reason on the status
    /// line; `nil`: everything.
    public var access: (@Sendable (any Source) -> AccessView)?
    /// Where the model records every edit with its author (the data set's audit history, as in
    /// the web app); with it, `u` and `U` undo and redo only ``author``'s own steps.
    public var history: (any HistoryLog)?
    /// Who the edits are made by (`browse --user`, else the operating system's user).
    public var author = HistoryAuthor(user: nil)
    /// The file to watch for changes made elsewhere while browsing read-only.
    public var watched: WatchedFile?

    /// How long a lone Esc waits for the rest of an escape sequence.
    static let escapeTimeoutMilliseconds: Int32 = 25

    /// Creates the app.
    public init(presenter: Presenter, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.presenter = presenter
        self.environment = environment
    }

    /// Takes over the terminal until the user quits.
    public func run() throws(TerminalError) {
        let terminal = try RawTerminal()
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        let trace = environment["DRILLDOWN_TRACE_FRAMES"].flatMap { FrameTrace(path: $0) }
        try terminal.enter()
        defer { terminal.restore() }
        let size = terminal.size()
        var first = model.map { Presenter(source: $0.versionedSource.source, schema: presenter.schema) } ?? presenter
        if let access { first.access = access(first.source) }
        var browser = Browser(presenter: first, width: size.width, height: size.height, editable: model != nil)
        browser.access = access
        var renderer = Renderer(noColor: noColor)
        var decoder = KeyDecoder()
        // A reader from whom rows are hidden searches without a limit: the hits are filtered, then cut.
        let searches = SearchWorker(limit: first.access?.hidesRows == true ? .max : Browser.searchLimit)
        let watcher = watched.map { FileWatcher($0, notify: searches.wakeUp) }
        let link = model.map { ModelLink(model: $0, history: history, author: author, notify: searches.wakeUp) }
        link?.access = access
        defer { link?.finish() }
        let idle: Int32 = watcher == nil && link == nil ? -1 : Int32(FileWatcher.interval / 1_000_000)
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
                link?.checkFollowing()
            case .resized:
                let size = terminal.size()
                browser.resize(width: size.width, height: size.height)
                label = "resize"
            case .woken:
                for done in searches.take() {
                    // Hits the user may not reach are left out, as on the web (``AccessView/filter(_:limit:in:)``).
                    let result = browser.presenter.access.map { $0.filter(done.result, limit: Browser.searchLimit, in: browser.source) } ?? done.result
                    browser.receiveSearch(done.text, hits: result.hits, total: result.total)
                    label = "search:\(done.text)"
                    trace?.record(label: "search-scan:\(done.text)", handle: done.nanoseconds, render: 0, write: 0, bytes: 0)
                }
                switch watcher?.take() {
                case .success(let reloaded)?:
                    browser.reload(reloaded)
                    label = "reload"
                case .failure(let error)?:
                    browser.reloadFailed(String(describing: error))
                    label = "reload"
                case nil:
                    break
                }
                if let link, follow(link, into: &browser) { label = "edit" }
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
                case .edit(let request):
                    link?.submit(request)
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

    /// Shows what the model did since the last call: other writers' changes, why the data cannot
    /// be read again, and the outcome of the browser's edits (on the data as it is now); returns
    /// whether there was anything.
    func follow(_ link: ModelLink, into browser: inout Browser) -> Bool {
        let news = link.take()
        let latest = link.model.versionedSource.source
        if news.changedElsewhere { browser.reload(Presenter(source: latest, schema: presenter.schema)) }
        if let problem = news.unreadable { browser.reloadFailed(problem) }
        for (request, outcome) in news.done { browser.finish(request, outcome, source: latest) }
        return news.changedElsewhere || news.unreadable != nil || !news.done.isEmpty
    }
}
