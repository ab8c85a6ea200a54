import DrillDownCore

/// The detail view of a node: its attributes labelled and formatted as the core reads them
/// (``DetailField``), long values wrapped.
extension Browser {
    /// One line of a detail view: a label (only on an attribute's first line) and text.
    struct DetailLine: Equatable {
        var label: String
        var text: String
    }

    /// The detail of `id` laid out for `width` cells.
    /// - Complexity: O(total length of the node's attributes)
    func detailLines(of id: NodeID, width: Int) -> [DetailLine] {
        let detail = presenter.detail(of: id)
        var fields = detail.fields.map { ($0.label, $0.text) }
        if let value = detail.value { fields.insert(("Value", value.kind == .null ? "null" : value.text), at: 0) }
        if let image = detail.row.image { fields.append(("Image", image)) }
        for bound in detail.row.controls where bound.control.kind != .button {
            if !detail.fields.contains(where: { $0.key.caseInsensitiveCompare(bound.control.target) == .orderedSame }) {
                fields.append((Field.readableLabel(bound.control.target), bound.value))
            }
        }
        let buttons = detail.row.controls.filter { $0.control.kind == .button }
        if !buttons.isEmpty { fields.append(("Actions", Self.buttonsText(buttons))) }
        if detail.row.childCount > 0 {
            fields.append(("Children", detail.row.childCount == 1 ? "1 row" : "\(detail.row.childCount) rows"))
        }
        if let kind = detail.row.kind { fields.append(("Kind", kind)) }
        guard !fields.isEmpty else { return [DetailLine(label: "", text: "(no attributes)")] }
        let labelWidth = min(fields.map { DisplayWidth.of($0.0) }.max() ?? 0, max(6, width / 3))
        let textWidth = max(1, width - labelWidth - 3)
        var lines: [DetailLine] = []
        for (label, text) in fields {
            let wrapped = TextFitting.wrap(text, to: textWidth)
            for (i, line) in (wrapped.isEmpty ? [""] : wrapped).enumerated() {
                lines.append(DetailLine(label: i == 0 ? label : "", text: line))
            }
        }
        return lines
    }

    mutating func handleDetail(_ key: Key) {
        var p = positions[positions.count - 1]
        let count = detailLines(of: navigator.top.node, width: width - 2).count
        if let scroll = scrollDetail(p.scroll, lineCount: count, key: key) {
            p.scroll = scroll
            setPosition(p)
            return
        }
        switch key {
        case .backspace, .left, .character("h"), .escape: back()
        case .enter, .right, .character("l"): inform("This is a detail view: Backspace goes back")
        default: break
        }
    }

    /// The new scroll offset for a scrolling key, or `nil` when `key` does not scroll.
    func scrollDetail(_ scroll: Int, lineCount: Int, key: Key) -> Int? {
        let h = listHeight
        let maxScroll = max(0, lineCount - h)
        let target: Int
        switch key {
        case .down, .character("j"), .control("n"): target = scroll + 1
        case .up, .character("k"), .control("p"): target = scroll - 1
        case .pageDown, .character(" "), .control("f"): target = scroll + max(1, h - 1)
        case .pageUp, .control("b"): target = scroll - max(1, h - 1)
        case .home, .character("g"): target = 0
        case .end, .character("G"): target = maxScroll
        default: return nil
        }
        return min(max(0, target), maxScroll)
    }

    /// Draws the detail of `id` from line `scroll` into `area`.
    func drawDetail(_ id: NodeID, scroll: Int, in area: Area, frame: inout Frame) {
        let lines = detailLines(of: id, width: area.width - 2)
        let labelWidth = lines.map { DisplayWidth.of($0.label) }.max() ?? 0
        let cappedLabel = min(labelWidth, max(6, (area.width - 2) / 3))
        let start = min(scroll, max(0, lines.count - area.height))
        for (i, line) in lines.dropFirst(start).prefix(area.height).enumerated() {
            let y = area.top + i
            if cappedLabel > 0 {
                frame.put(line.label, row: y, column: area.left + 1, width: cappedLabel, style: .bold)
                frame.put(line.text, row: y, column: area.left + 1 + cappedLabel + 2, width: area.width - cappedLabel - 3)
            } else {
                frame.put(line.text, row: y, column: area.left + 1, width: area.width - 2, style: .dim)
            }
        }
        if lines.count > area.height, area.width > 2 {
            drawScrollbar(scroll: start, count: lines.count, area: area, frame: &frame)
        }
    }
}
