import DrillDownCore

/// The search prompt (`/`): results update as you type, ↑/↓ choose, Enter opens, Esc cancels.
public struct SearchPrompt: Equatable, Sendable {
    /// The query being typed.
    public var field = TextField()
    /// The first hits for the current text, in document order.
    public var hits: [NodeID] = []
    /// How many nodes match in all.
    public var total = 0
    /// The chosen hit and the results list's scroll.
    public var position = ListPosition()
    /// The text the hits belong to; differs from the field's text while a search is running.
    public var searchedText = ""

    /// Whether the hits are for an older text than the one typed.
    public var isSearching: Bool { searchedText != field.text }

    mutating func apply(_ text: String, hits: [NodeID], total: Int) {
        searchedText = text
        self.hits = hits
        self.total = total
        position = ListPosition()
    }
}

/// A prompt on the status line.
public enum Prompt: Equatable, Sendable {
    /// `:` go to a TreePath (`3.0.0`) or a title path (`Item 4/Screen G`).
    case goTo(TextField)
    /// `/` search titles at any depth.
    case search(SearchPrompt)
    /// `a` or `r`: the title of a new row, or the new title of a row.
    case title(TitlePrompt)
    /// `d`: delete the row at this path? `y` deletes, any other key keeps it.
    case confirmDelete(TreePath)
    /// `e`: a leaf's value or a row's fields in a form.
    case fields(FieldsPrompt)
    /// `f`: a filter on the level shown.
    case filter(FilterPrompt)
}

extension Prompt {
    /// Whether the prompt holds nodes or paths of the tree shown, which a reload makes stale.
    var refersToNodes: Bool {
        if case .goTo = self { return false }
        return true
    }
}

/// The title prompt of `a` (add) and `r` (rename): Enter applies, Esc cancels, an empty title changes nothing.
public struct TitlePrompt: Equatable, Sendable {
    /// What the title is for.
    public enum Purpose: Equatable, Sendable {
        /// A new row in `parent` at `index`.
        case add(parent: TreePath, index: Int)
        /// The row at this path.
        case rename(TreePath)
    }

    /// What the title is for.
    public var purpose: Purpose
    /// The title typed (prefilled with the current one when renaming).
    public var field = TextField()
}

/// The hits of the last search, for `n` / `N`.
public struct Matches: Equatable, Sendable {
    /// What was searched for.
    public var query: String
    /// The hits in document order (at most ``Browser/searchLimit``).
    public var hits: [NodeID]
    /// How many nodes match in all.
    public var total: Int
    /// The hit shown last.
    public var current: Int
}

extension Browser {
    mutating func handlePrompt(_ key: Key) {
        switch prompt {
        case .goTo(var field):
            switch key {
            case .escape, .control("c"): prompt = nil
            case .enter:
                prompt = nil
                goTo(field.text)
            default:
                if key == .backspace, field.text.isEmpty {
                    prompt = nil
                } else if field.edit(key) {
                    prompt = .goTo(field)
                }
            }
        case .search(var s):
            let visible = listHeight
            let count = s.hits.count
            switch key {
            case .escape, .control("c"):
                prompt = nil
                return
            case .enter:
                if s.isSearching {
                    let result = source.find(SearchQuery(s.field.text, limit: Self.searchLimit))
                    s.apply(s.field.text, hits: result.hits, total: result.total)
                }
                let count = s.hits.count
                prompt = nil
                guard count > 0 else {
                    if !s.field.text.isEmpty { inform("No match for “\(s.field.text)”", error: true) }
                    return
                }
                matches = Matches(query: s.field.text, hits: s.hits, total: s.total, current: s.position.selected)
                show(s.hits[s.position.selected], open: true)
                informMatch()
                return
            case .down, .control("n"): s.position.select(s.position.selected + 1, count: count, visible: visible)
            case .up, .control("p"): s.position.select(s.position.selected - 1, count: count, visible: visible)
            case .pageDown: s.position.page(1, count: count, visible: visible)
            case .pageUp: s.position.page(-1, count: count, visible: visible)
            default:
                if key == .backspace, s.field.text.isEmpty {
                    prompt = nil
                    return
                }
                guard s.field.edit(key) else { return }
                if s.field.text.isEmpty {
                    s.apply("", hits: [], total: 0)
                } else {
                    effects.append(.search(s.field.text))
                }
            }
            prompt = .search(s)
        case .title(let p):
            handleTitlePrompt(p, key: key)
        case .confirmDelete(let path):
            handleConfirmDelete(path, key: key)
        case .fields(let p):
            handleFieldsPrompt(p, key: key)
        case .filter(let p):
            handleFilterPrompt(p, key: key)
        case nil:
            break
        }
    }

    /// Shows the hits of a search for `text` (asked for by a ``Effect/search(_:)`` effect) if the search prompt is still open.
    public mutating func receiveSearch(_ text: String, hits: [NodeID], total: Int) {
        guard case .search(var s) = prompt, s.searchedText != text else { return }
        s.apply(text, hits: hits, total: total)
        prompt = .search(s)
    }

    mutating func goTo(_ text: String) {
        do {
            // A row hidden from the user (`browse --user`) is not reachable by path.
            let id = if let view = presenter.access { try view.resolve(text, in: source) } else { try source.resolve(text) }
            show(id, open: true)
        } catch {
            inform(error.description, error: true)
        }
    }

    mutating func jumpToMatch(by step: Int) {
        guard var m = matches, !m.hits.isEmpty else {
            inform("No search yet: press / to search")
            return
        }
        m.current = (m.current + step + m.hits.count) % m.hits.count
        matches = m
        show(m.hits[m.current], open: false)
        informMatch()
    }

    mutating func informMatch() {
        guard let m = matches else { return }
        let more = m.total > m.hits.count ? " (first \(m.hits.count) of \(m.total))" : ""
        inform("Match \(m.current + 1)/\(m.hits.count)\(more) for “\(m.query)” · n next, N previous")
    }

    /// The results list: each hit's title and, dimmed on the right, where it is.
    func drawSearchResults(_ s: SearchPrompt, in area: Area, frame: inout Frame) {
        let hits = s.hits
        if hits.isEmpty {
            let text = s.field.text.isEmpty ? "Type to search titles at any depth" : s.isSearching ? "Searching…" : "No match"
            frame.put(text, row: area.top, column: area.left + 1, width: area.width - 1, style: .dim)
            return
        }
        let scroll = s.position.scroll
        for i in 0 ..< min(area.height, hits.count - scroll) {
            let id = hits[scroll + i]
            let y = area.top + i
            let parent = source.parent(of: id) ?? source.root
            let place = parent == source.root ? presenter.rootTitle : source.titlePath(of: parent)
            let inner = area.width - 2
            let placeWidth = min(DisplayWidth.of(place), inner * 45 / 100)
            let titleWidth = max(1, inner - placeWidth - 2)
            frame.put(presenter.row(for: id).title, row: y, column: area.left + 1, width: titleWidth)
            frame.put(TextFitting.truncateHead(place, to: placeWidth), row: y, column: area.left + 1 + inner - placeWidth, width: placeWidth, style: .dim)
            if s.position.selected == scroll + i { frame.paint(row: y, column: area.left, count: area.width, style: .reverse) }
        }
    }
}
