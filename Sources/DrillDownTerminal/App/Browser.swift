import DrillDownCore

/// The terminal UI as a value: every key goes through ``handle(_:)`` and every frame comes from
/// ``render()``, so the whole screen model is testable without a terminal.
///
/// Navigation, the outline, search and templates all come from the core (``Navigator``,
/// ``Outline``, ``Source/find(_:)``, ``Presenter``); the browser adds what a list on a screen
/// needs: the selected row and scroll position of every screen, prompts, and layout.
///
/// ```swift
/// var browser = Browser(presenter: presenter, width: 80, height: 24)
/// browser.handle(.end)      // select Item 4
/// browser.handle(.enter)    // drill into it
/// browser.render().lines[1] // "Root › Item 4"
/// ```
public struct Browser: Sendable {
    /// The three ways of showing the tree.
    public enum Mode: Sendable, Equatable {
        /// One level at a time (the default).
        case drillDown
        /// The tree inside one list.
        case outline
        /// Miller columns of the current path.
        case columns
    }

    /// Something the event loop must do outside the screen model.
    public enum Effect: Sendable, Equatable {
        /// Put text on the clipboard (OSC 52).
        case copy(String)
        /// Stop the process (Ctrl-Z).
        case suspend
        /// Redraw everything (Ctrl-L).
        case redraw
        /// Search for this text, off the key-handling path, and hand the result to ``receiveSearch(_:hits:total:)``.
        case search(String)
        /// Run an edit on the document model and hand its outcome to ``finish(_:_:source:)``.
        case edit(EditRequest)
    }

    /// A line of feedback in the status bar, shown until the next key.
    public struct Message: Sendable, Equatable {
        /// The text.
        public var text: String
        /// Whether it reports a problem.
        public var isError: Bool
    }

    /// Rows, titles and templates; replaced after every edit and every reload.
    public internal(set) var presenter: Presenter
    /// The reader's access over each new version of the data (`browse --user`): every presenter
    /// that replaces ``presenter`` gets it, so rows hidden from the user stay out of every mode.
    public var access: (@Sendable (any Source) -> AccessView)?
    /// The drill-down stack (shared by drill-down and columns modes).
    public internal(set) var navigator: Navigator
    /// The current mode.
    public internal(set) var mode: Mode = .drillDown
    /// Selection and scroll of each screen of the navigator's stack, restored when going back.
    public internal(set) var positions: [ListPosition] = [ListPosition()]
    /// The outline's expanded state.
    public internal(set) var outline: Outline
    /// Selection and scroll in outline mode.
    public internal(set) var outlinePosition = ListPosition()
    /// The node whose detail is shown over the outline, if any.
    public internal(set) var outlineDetail: NodeID?
    var outlineDetailScroll = 0
    /// The open prompt, if any.
    public internal(set) var prompt: Prompt?
    /// The filters set with `f`, by the TreePath of their level; applied again to every new
    /// version of the data (an edit, a reload).
    public internal(set) var levelFilters: [TreePath: Filter] = [:]
    /// The last search's hits, for `n` and `N`.
    public internal(set) var matches: Matches?
    /// Feedback for the status bar.
    public internal(set) var message: Message?
    /// Screen width in cells.
    public internal(set) var width: Int
    /// Screen height in cells.
    public internal(set) var height: Int
    /// Whether the user quit.
    public internal(set) var isFinished = false
    /// Work for the event loop, in order; take it with ``takeEffects()``.
    public internal(set) var effects: [Effect] = []
    /// The edits under way, or `nil` when browsing read-only (without `--editable`).
    public internal(set) var editor: Editor?
    /// Why the file on disk cannot be read since it last changed (half written elsewhere);
    /// edits are refused while it is set, and a successful reload clears it.
    public internal(set) var unreadableFile: String?
    /// The most search hits kept for the results list and `n`/`N`.
    public static let searchLimit = 1000

    /// A browser at the root level, in drill-down mode.
    public init(presenter: Presenter, width: Int, height: Int) {
        self.presenter = presenter
        navigator = Navigator(presenter: presenter)
        outline = Outline(presenter: presenter)
        self.width = width
        self.height = height
    }

    /// A browser whose keys also edit (`editable`): `e` a value or a row's fields, `a` add, `r` rename, `d` delete, `J`/`K` move,
    /// `u`/`U` undo and redo, Space/`+`/`-` operate switches and sliders, Enter and `1`…`9` run
    /// actions. Each edit is an ``Effect/edit(_:)`` for the event loop's ``DocumentModel``.
    public init(presenter: Presenter, width: Int, height: Int, editable: Bool) {
        self.init(presenter: presenter, width: width, height: height)
        if editable { editor = Editor() }
    }

    var source: any Source { presenter.source }

    /// Counts presenter swaps, so cached sections of an older presenter are never used.
    var presenterGeneration = 0
    /// The sections of the levels drawn (schema `section:`), per presenter.
    let sectionMemo = SectionMemo()

    /// The sections of the level under `node`, or `nil` when it is not sectioned.
    func sections(of node: NodeID) -> Sections? {
        sectionMemo.sections(of: node, presenter: presenter, generation: presenterGeneration)
    }

    /// The rows a list can show: the screen minus the title bar, breadcrumbs and status line.
    public var listHeight: Int { max(1, height - 3) }

    /// Returns and clears the pending effects.
    public mutating func takeEffects() -> [Effect] {
        defer { effects = [] }
        return effects
    }

    /// Adapts to a new terminal size, keeping every selection visible.
    public mutating func resize(width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
        for k in positions.indices {
            if case .level(let n) = navigator.stack[k] {
                positions[k].reveal(count: presenter.rowCount(of: n), visible: listHeight)
            }
        }
        outlinePosition.reveal(count: outline.visibleCount, visible: listHeight)
        if case .search(var s) = prompt {
            s.position.reveal(count: s.hits.count, visible: listHeight)
            prompt = .search(s)
        }
    }

    /// The smallest screen the browser draws on; below it only "Too small" shows.
    public static let minimumSize = (width: 12, height: 4)

    /// Whether the screen is below ``minimumSize``: nothing but "Too small" is visible.
    public var isTooSmall: Bool { width < Self.minimumSize.width || height < Self.minimumSize.height }

    /// Applies one key.
    ///
    /// Behind the "Too small" screen only quitting (`q`, Ctrl-C), suspending and redrawing act:
    /// no key may change or open what the user cannot see. A paste goes into an open prompt as
    /// text and is ignored otherwise. While an edit is under way (``Editor/pending``) keys wait
    /// and are handled once it is done (``finish(_:_:source:)``); Ctrl-C is handled at once.
    public mutating func handle(_ key: Key) {
        if isTooSmall {
            switch key {
            case .character("q"), .control("c"): isFinished = true
            case .control("z"): effects.append(.suspend)
            case .control("l"): effects.append(.redraw)
            default: break
            }
            return
        }
        if editor?.pending != nil, key != .control("c") {
            // The key acts on the data the edit under way leaves.
            editor?.held.append(key)
            return
        }
        message = nil
        if prompt != nil {
            handlePrompt(key)
            return
        }
        if case .paste = key {
            inform("Pasted text is only taken by a prompt (: go to, / search, a add, r rename)")
            return
        }
        switch key {
        case .character("q"), .control("c"): isFinished = true
        case .control("z"): effects.append(.suspend)
        case .control("l"): effects.append(.redraw)
        case .character(":"): prompt = .goTo(TextField())
        case .character("/"): prompt = .search(SearchPrompt())
        case .character("f"): startFiltering()
        case .character("F"): clearFilter()
        case .character("n"): jumpToMatch(by: 1)
        case .character("N"): jumpToMatch(by: -1)
        case .character("y"): copyPath()
        case .character("o"): switchMode(to: mode == .outline ? .drillDown : .outline)
        case .character("c"): switchMode(to: mode == .columns ? .drillDown : .columns)
        default:
            if handleEditKey(key) { return }
            if mode == .outline { handleOutline(key) } else { handleDrillDown(key) }
        }
    }

    /// The node the user is looking at: the selected row, or the node of a detail view.
    public var currentNode: NodeID {
        if mode == .outline { return outlineDetail ?? outline.node(atRow: outlinePosition.selected) ?? source.root }
        switch navigator.top {
        case .detail(let id): return id
        case .level(let n):
            return presenter.child(of: n, at: positions[positions.count - 1].selected) ?? n
        }
    }

    mutating func copyPath() {
        let id = currentNode
        let path = source.path(of: id)
        let titles = source.titlePath(of: id)
        effects.append(.copy(path.isRoot ? "/" : path.description))
        message = Message(text: path.isRoot ? "Path: the root (copied)" : "Path \(path) · \(titles) (copied)", isError: false)
    }

    mutating func switchMode(to newMode: Mode) {
        let node = currentNode
        let detail = mode == .outline ? outlineDetail != nil : navigator.top.isDetail
        if newMode == .outline {
            outlineDetail = nil
            if node != source.root {
                outline.reveal(node)
                outlinePosition.select(outline.row(of: node) ?? 0, count: outline.visibleCount, visible: listHeight)
                outlinePosition.center(count: outline.visibleCount, visible: listHeight)
                if detail { outlineDetail = node }
            }
            mode = newMode
        } else if mode == .outline {
            mode = newMode
            show(node, open: detail)
        } else {
            mode = newMode
        }
    }

    /// Shows `id`: opened (its level, or its detail when it does not drill) when `open`, else selected in its parent's level.
    mutating func show(_ id: NodeID, open: Bool) {
        if mode == .outline {
            outlineDetail = nil
            outline.reveal(id)
            if let row = outline.row(of: id) {
                outlinePosition.select(row, count: outline.visibleCount, visible: listHeight)
                outlinePosition.center(count: outline.visibleCount, visible: listHeight)
            }
            if open, id != source.root, !presenter.row(for: id).drills { outlineDetail = id }
            return
        }
        guard id != source.root else {
            navigator.popToRoot()
            rebuildPositions(lastSelected: 0)
            return
        }
        if open {
            navigator.open(id)
            rebuildPositions(lastSelected: 0)
            return
        }
        let parent = source.parent(of: id) ?? source.root
        navigator.open(parent)
        if navigator.top != .level(parent) { navigator.open(id) }
        rebuildPositions(lastSelected: presenter.displayPosition(of: id) ?? 0)
    }

    /// Recomputes every screen's selection from the stack after a jump, centring the selections.
    mutating func rebuildPositions(lastSelected: Int) {
        let stack = navigator.stack
        positions = stack.indices.map { k in
            var p = ListPosition()
            guard case .level(let n) = stack[k] else { return p }
            let count = presenter.rowCount(of: n)
            if k + 1 < stack.count {
                p.selected = presenter.displayPosition(of: stack[k + 1].node) ?? 0
            } else {
                p.selected = min(lastSelected, max(0, count - 1))
            }
            p.center(count: count, visible: listHeight)
            return p
        }
    }

    mutating func setPosition(_ p: ListPosition) { positions[positions.count - 1] = p }

    mutating func push() { positions.append(ListPosition()) }

    mutating func back() {
        if navigator.pop() { positions.removeLast() }
    }

    mutating func inform(_ text: String, error: Bool = false) { message = Message(text: text, isError: error) }
}
