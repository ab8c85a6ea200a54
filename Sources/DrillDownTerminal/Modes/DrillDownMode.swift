import DrillDownCore

/// Drill-down mode (also the keys of columns mode): one level at a time, Enter drills, Backspace goes back.
extension Browser {
    mutating func handleDrillDown(_ key: Key) {
        guard case .level(let node) = navigator.top else {
            handleDetail(key)
            return
        }
        let count = presenter.rowCount(of: node)
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
        case .character("]"), .character("["):
            // The jump key of a sectioned level: to the next section's first row, or back to this
            // section's first row (the previous section's when already there).
            guard let sections = sections(of: node), let k = sections.section(containing: p.selected) else { return }
            let here = sections.sections[k].start
            let target = key == .character("]")
                ? (k + 1 < sections.sections.count ? sections.sections[k + 1].start : here)
                : (p.selected > here || k == 0 ? here : sections.sections[k - 1].start)
            p.select(target, count: count, visible: visible)
            p.scroll = target
            p.reveal(count: count, visible: visible)
        case .escape: matches = nil
        default: return
        }
        setPosition(p)
    }

    mutating func openRow(_ index: Int, in node: NodeID) {
        guard let child = presenter.child(of: node, at: index) else {
            inform("This level is empty")
            return
        }
        switch navigator.select(index) {
        case .pushedLevel, .pushedDetail: push()
        case .action(let name, let id):
            if editor == nil { inform(Self.readOnlyMessage, error: true) } else { run(name, on: id) }
        case .none: inform("“\(presenter.row(for: child).title)” opens nothing")
        }
    }

    /// Draws the level under `node` with `position` into `area`.
    func drawLevel(_ node: NodeID, position: ListPosition?, active: Bool, in area: Area, frame: inout Frame) {
        let count = presenter.rowCount(of: node)
        if count == 0 {
            let empty = presenter.filter(of: node).map { "No row matches \($0) (F shows every row)" } ?? "(empty)"
            frame.put(empty, row: area.top, column: area.left + 1, width: area.width - 1, style: .dim)
            return
        }
        let scroll = position?.scroll ?? 0
        if let sections = sections(of: node) {
            drawSectioned(node, sections: sections, count: count, position: position, active: active, in: area, frame: &frame)
            return
        }
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

    /// Draws a sectioned level: a header line (`── M`) above the first visible row and before
    /// every row that starts a section. Headers take lines, so the first row drawn moves down
    /// from the list's scroll until the selected row fits.
    /// - Complexity: O(height + log sections).
    func drawSectioned(
        _ node: NodeID, sections: Sections, count: Int, position: ListPosition?, active: Bool, in area: Area, frame: inout Frame
    ) {
        var start = min(position?.scroll ?? 0, max(0, count - 1))
        if let selected = position?.selected, selected >= start {
            func lines(_ from: Int) -> Int { selected - from + 2 + sections.starting(in: (from + 1) ..< (selected + 1)).count }
            while start < selected, lines(start) > area.height { start += 1 }
        }
        let rows = presenter.rows(of: node, offset: start, limit: area.height)
        var y = area.top
        var next = sections.section(containing: start).map { $0 + 1 } ?? sections.sections.count
        for (i, row) in rows.enumerated() {
            let index = start + i
            let startsHere = next < sections.sections.count && sections.sections[next].start == index
            if i == 0 || startsHere, let k = sections.section(containing: index) {
                if startsHere { next += 1 }
                frame.put("── " + sections.sections[k].title, row: y, column: area.left + 1, width: area.width - 2, style: Style.bold.with(.dim))
                y += 1
            }
            guard y < area.top + area.height else { break }
            let selected = position.map { $0.selected == index } ?? false
            drawRow(row, prefix: "", at: y, left: area.left, width: area.width,
                    highlight: selected ? (active ? .active : .trail) : .none, frame: &frame)
            y += 1
            if y >= area.top + area.height { break }
        }
        if count > area.height, area.width > 2 {
            drawScrollbar(scroll: start, count: count, area: area, frame: &frame)
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
