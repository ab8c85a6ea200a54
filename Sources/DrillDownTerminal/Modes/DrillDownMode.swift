import DrillDownCore

/// Drill-down mode (also the keys of columns mode): one level at a time, Enter drills, Backspace goes back.
extension Browser {
    mutating func handleDrillDown(_ key: Key) {
        guard case .level(let node) = navigator.top else {
            handleDetail(key)
            return
        }
        let count = source.childCount(of: node)
        var p = positions[positions.count - 1]
        let visible = listHeight
        switch key {
        case .down, .character("j"), .control("n"): p.select(p.selected + 1, count: count, visible: visible)
        case .up, .character("k"), .control("p"): p.select(p.selected - 1, count: count, visible: visible)
        case .home, .character("g"): p.select(0, count: count, visible: visible)
        case .end, .character("G"): p.select(count - 1, count: count, visible: visible)
        case .pageDown, .control("f"), .character(" "): p.page(1, count: count, visible: visible)
        case .pageUp, .control("b"): p.page(-1, count: count, visible: visible)
        case .enter, .right, .character("l"):
            openRow(p.selected, in: node)
            return
        case .character("i"):
            guard p.selected < count else { return }
            navigator.showDetail(p.selected)
            push()
            return
        case .backspace, .left, .character("h"):
            back()
            return
        case .escape: matches = nil
        default: return
        }
        setPosition(p)
    }

    mutating func openRow(_ index: Int, in node: NodeID) {
        let range = source.children(of: node)
        guard index < range.count else {
            inform("This level is empty")
            return
        }
        switch navigator.select(index) {
        case .pushedLevel, .pushedDetail: push()
        case .action(let name, let id):
            if editor == nil { inform(Self.readOnlyMessage, error: true) } else { run(name, on: id) }
        case .none: inform("“\(presenter.row(for: range[index]).title)” opens nothing")
        }
    }

    /// Draws the level under `node` with `position` into `area`.
    func drawLevel(_ node: NodeID, position: ListPosition?, active: Bool, in area: Area, frame: inout Frame) {
        let count = source.childCount(of: node)
        if count == 0 {
            frame.put("(empty)", row: area.top, column: area.left + 1, width: area.width - 1, style: .dim)
            return
        }
        let scroll = position?.scroll ?? 0
        let rows = presenter.rows(of: node, offset: scroll, limit: area.height)
        for (i, row) in rows.enumerated() {
            let selected = position.map { $0.selected == scroll + i } ?? false
            drawRow(row, prefix: "", at: area.top + i, left: area.left, width: area.width,
                    highlight: selected ? (active ? .active : .trail) : .none, frame: &frame)
        }
        if count > area.height, area.width > 2 {
            drawScrollbar(scroll: scroll, count: count, area: area, frame: &frame)
        }
    }

    /// A one-cell scroll indicator at the right edge of `area`.
    func drawScrollbar(scroll: Int, count: Int, area: Area, frame: inout Frame) {
        let h = area.height
        let thumb = max(1, h * h / count)
        let top = count - h <= 0 ? 0 : (h - thumb) * scroll / (count - h)
        for y in 0 ..< h {
            let inThumb = y >= top && y < top + thumb
            frame.put(inThumb ? "┃" : "│", row: area.top + y, column: area.left + area.width - 1, width: 1, style: .dim)
        }
    }
}

/// A rectangle of the screen.
struct Area: Equatable {
    var top: Int
    var left: Int
    var width: Int
    var height: Int
}
