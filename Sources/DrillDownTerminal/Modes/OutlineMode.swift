import DrillDownCore

/// Outline mode: the tree in one list, ▸/▾ markers, Space/→/← expand and collapse, E/C for all.
extension Browser {
    mutating func handleOutline(_ key: Key) {
        if let id = outlineDetail {
            let count = detailLines(of: id, width: width - 2).count
            if let scroll = scrollDetail(outlineDetailScroll, lineCount: count, key: key) {
                outlineDetailScroll = scroll
            } else if [.backspace, .left, .character("h"), .escape].contains(key) {
                outlineDetail = nil
            }
            return
        }
        var p = outlinePosition
        let visible = listHeight
        var count: Int { outline.visibleCount }
        let node = outline.node(atRow: p.selected)
        switch key {
        case .down, .character("j"), .control("n"): p.select(p.selected + 1, count: count, visible: visible)
        case .up, .character("k"), .control("p"): p.select(p.selected - 1, count: count, visible: visible)
        case .home, .character("g"): p.select(0, count: count, visible: visible)
        case .end, .character("G"): p.select(count - 1, count: count, visible: visible)
        case .pageDown, .control("f"): p.page(1, count: count, visible: visible)
        case .pageUp, .control("b"): p.page(-1, count: count, visible: visible)
        case .character(" "):
            guard let node else { return }
            outline.toggle(node)
        case .right, .character("l"):
            guard let node, presenter.rowCount(of: node) > 0 else { return }
            if outline.isExpanded(node) {
                p.select(p.selected + 1, count: count, visible: visible)
            } else {
                outline.expand(node)
            }
        case .left, .character("h"), .backspace:
            guard let node else { return }
            if outline.isExpanded(node), presenter.rowCount(of: node) > 0 {
                outline.collapse(node)
            } else if let parent = source.parent(of: node), parent != source.root, let row = outline.row(of: parent) {
                p.select(row, count: count, visible: visible)
            }
        case .enter:
            guard let node else { return }
            if presenter.row(for: node).drills {
                outline.toggle(node)
            } else {
                outlineDetail = node
                outlineDetailScroll = 0
            }
        case .character("i"):
            guard let node else { return }
            outlineDetail = node
            outlineDetailScroll = 0
        case .character("E"):
            outline.expandAll()
            if let node, let row = outline.row(of: node) { p.selected = row }
            p.center(count: count, visible: visible)
        case .character("C"):
            outline.collapseAll()
            if let node {
                let top = source.lineage(of: node).dropFirst().first ?? node
                p.selected = presenter.displayPosition(of: top) ?? 0
            }
            p.center(count: count, visible: visible)
        case .escape: matches = nil
        default: return
        }
        p.reveal(count: count, visible: visible)
        outlinePosition = p
    }

    /// Draws the visible rows of the outline into `area`: only those rows are looked up and formatted.
    func drawOutline(in area: Area, frame: inout Frame) {
        if let id = outlineDetail {
            drawDetail(id, scroll: outlineDetailScroll, in: area, frame: &frame)
            return
        }
        let count = outline.visibleCount
        if count == 0 {
            frame.put("(empty)", row: area.top, column: area.left + 1, width: area.width - 1, style: .dim)
            return
        }
        let scroll = outlinePosition.scroll
        for i in 0 ..< min(area.height, count - scroll) {
            guard let entry = outline.entry(atRow: scroll + i) else { break }
            var row = presenter.row(for: entry.id)
            let hasChildren = row.childCount > 0
            let marker = !hasChildren ? "  " : outline.isExpanded(entry.id) ? "▾ " : "▸ "
            let indent = String(repeating: "  ", count: min(entry.depth - 1, max(0, (area.width - 12) / 4)))
            row.drills = false
            drawRow(row, prefix: indent + marker, at: area.top + i, left: area.left, width: area.width,
                    highlight: outlinePosition.selected == scroll + i ? .active : .none, frame: &frame)
        }
        if count > area.height, area.width > 2 {
            drawScrollbar(scroll: scroll, count: count, area: area, frame: &frame)
        }
    }
}
