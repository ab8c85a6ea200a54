import DrillDownCore

/// The filter prompt (`f`): an expression that narrows the level shown to the rows it matches, in
/// the syntax of the CLI's `--where` and the web's `?where=` (`length>6:00 and genre=Rock`).
/// Enter applies it (an empty one shows every row again), Esc cancels; a bad expression keeps the
/// prompt open and says what is wrong and at which column.
public struct FilterPrompt: Equatable, Sendable {
    /// The level being filtered.
    public var level: TreePath
    /// The expression typed, prefilled with the level's filter.
    public var field = TextField()
    /// Why the last expression was refused, shown above the prompt.
    public var error: String?
}

extension Browser {
    /// `f` on a level (drill-down or columns mode): opens ``FilterPrompt``.
    mutating func startFiltering() {
        guard mode != .outline, case .level(let n) = navigator.top else {
            inform("f filters the level shown: open a level (o leaves the outline)", error: true)
            return
        }
        let path = source.path(of: n)
        prompt = .filter(FilterPrompt(level: path, field: TextField(text: levelFilters[path]?.description ?? "")))
    }

    /// `F` on a level: shows every row again.
    mutating func clearFilter() {
        guard case .level(let n) = navigator.top, levelFilters[source.path(of: n)] != nil else {
            inform("This level is not filtered: f filters it")
            return
        }
        _ = applyFilter(nil, at: source.path(of: n))
    }

    mutating func handleFilterPrompt(_ p: FilterPrompt, key: Key) {
        var p = p
        switch key {
        case .escape, .control("c"):
            prompt = nil
        case .enter:
            let text = p.field.text.trimmingCharacters(in: .whitespaces)
            prompt = nil
            if let problem = applyFilter(text.isEmpty ? nil : text, at: p.level) {
                p.error = problem
                prompt = .filter(p)
            }
        default:
            guard p.field.edit(key) else { return }
            p.error = nil
            prompt = .filter(p)
        }
    }

    /// Narrows the level at `path` by `text` (`nil`: every row) and selects its first row;
    /// returns why the expression was refused, if it was.
    mutating func applyFilter(_ text: String?, at path: TreePath) -> String? {
        guard let id = source.node(at: path) else { return "The level is gone" }
        let filter: Filter?
        let narrowed: Presenter
        do {
            filter = try text.map { t throws(FilterError) in try Filter(t) }
            narrowed = try presenter.filtering(id, by: filter)
        } catch {
            return error.description
        }
        levelFilters[path] = filter
        adopt(narrowed)
        let count = presenter.rowCount(of: id)
        if navigator.top == .level(id) {
            var p = ListPosition()
            p.select(0, count: count, visible: listHeight)
            setPosition(p)
        }
        if let filter {
            let all = presenter.filtering(unfiltered: id).rowCount(of: id)
            inform("\(count) of \(all) rows where \(filter) · f changes it, F shows every row")
        } else {
            inform("Every row shown")
        }
        return nil
    }

    /// Shows the same data through `narrowed` (filters changed), keeping the stack and positions.
    mutating func adopt(_ narrowed: Presenter) {
        presenter = narrowed
        presenterGeneration += 1
        navigator.narrowing(narrowed)
        for k in positions.indices {
            if case .level(let n) = navigator.stack[k] {
                positions[k].reveal(count: presenter.rowCount(of: n), visible: listHeight)
            }
        }
    }

    /// `given` with the filters the user set (``levelFilters``) applied again to a new version
    /// of the data; a filter whose level is gone, or that the level no longer takes, is dropped.
    mutating func refiltered(_ given: Presenter) -> Presenter {
        var out = given
        for (path, filter) in levelFilters {
            if let id = given.source.node(at: path), let p = try? out.filtering(id, by: filter) {
                out = p
            } else {
                levelFilters[path] = nil
            }
        }
        return out
    }

    /// The status line's note on a filtered level: `where length>6:00`.
    func filterNote(of level: NodeID) -> String? {
        presenter.filter(of: level).map { "where \($0)" }
    }
}

extension Presenter {
    /// This presenter with the level under `id` unfiltered (its other levels' filters kept).
    func filtering(unfiltered id: NodeID) -> Presenter {
        (try? filtering(id, by: nil)) ?? self
    }
}
