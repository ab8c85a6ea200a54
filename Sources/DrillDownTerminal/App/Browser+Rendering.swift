import DrillDownCore

/// The whole screen: title bar, breadcrumbs, the mode's body and the status line.
extension Browser {
    /// The frame for the current state and size. Only the rows on screen are looked up and formatted.
    /// - Complexity: O(width × height + visible rows × depth)
    public func render() -> Frame {
        var frame = Frame(width: width, height: height)
        guard !isTooSmall else {
            frame.put("Too small", row: 0, column: 0)
            return frame
        }
        drawTitleBar(&frame)
        let body = Area(top: 2, left: 0, width: width, height: listHeight)
        if case .search(let s) = prompt {
            drawSearchResults(s, in: body, frame: &frame)
        } else if case .fields(let p) = prompt {
            drawFields(p, in: body, frame: &frame)
        } else {
            switch mode {
            case .outline: drawOutline(in: body, frame: &frame)
            case .columns: drawColumns(in: body, frame: &frame)
            case .drillDown:
                switch navigator.top {
                case .level(let n): drawLevel(n, position: positions[positions.count - 1], active: true, in: body, frame: &frame)
                case .detail(let n): drawDetail(n, scroll: positions[positions.count - 1].scroll, in: body, frame: &frame)
                }
            }
        }
        drawStatusLine(&frame)
        return frame
    }

    /// The titles from the root to what is shown, for the breadcrumbs.
    public var breadcrumbs: [String] {
        if mode == .outline {
            guard let id = outlineDetail ?? outline.node(atRow: outlinePosition.selected) else { return [presenter.rootTitle] }
            return source.lineage(of: id).map { presenter.screenTitle(of: $0) }
        }
        return navigator.breadcrumbs.map(\.title)
    }

    /// The title bar's title.
    public var title: String {
        if mode == .outline { return outlineDetail.map { presenter.screenTitle(of: $0) } ?? presenter.rootTitle }
        return navigator.title
    }

    func drawTitleBar(_ frame: inout Frame) {
        let bar = Style.reverse
        frame.fill(row: 0, style: bar)
        let tag: String =
            switch (prompt, mode) {
            case (.search, _): "search"
            case (.fields, _): "edit"
            case (.filter, _): "filter"
            case (_, .outline): "outline"
            case (_, .columns): "columns"
            case (_, .drillDown): ""
            }
        let back = mode == .outline ? (outlineDetail == nil ? nil : "Outline") : navigator.backLabel
        let titleText = TextFitting.truncate(title, to: max(1, width - 4))
        let titleWidth = DisplayWidth.of(titleText)
        let titleLeft = max(0, (width - titleWidth) / 2)
        if let back {
            frame.put("‹ " + back, row: 0, column: 1, width: max(0, titleLeft - 2), style: bar)
        }
        if !tag.isEmpty {
            let tagText = "[\(tag)]"
            let tw = DisplayWidth.of(tagText)
            if width - tw - 1 > titleLeft + titleWidth + 1 { frame.put(tagText, row: 0, column: width - tw - 1, width: tw, style: bar) }
        }
        frame.put(titleText, row: 0, column: titleLeft, width: titleWidth, style: bar.with(.bold))
        let crumbs = TextFitting.truncateHead(breadcrumbs.joined(separator: " › "), to: width - 2)
        frame.put(crumbs, row: 1, column: 1, width: width - 2, style: .dim)
    }

    /// Position (`3/4`), the current node's TreePath, and key hints or a message.
    func drawStatusLine(_ frame: inout Frame) {
        let y = height - 1
        switch prompt {
        case .goTo(let field):
            let prefix = "Go to path (3.0.0 or Item 4/Screen G): "
            drawPromptLine(prefix: width >= 60 ? prefix : ":", field.text, right: "", row: y, frame: &frame)
            return
        case .search(let s):
            let count =
                s.isSearching ? "searching…" : s.field.text.isEmpty ? "" : s.total == 0 ? "no match" : s.total > s.hits.count ? "\(s.hits.count) of \(s.total) matches"
                : s.total == 1 ? "1 match" : "\(s.total) matches"
            drawPromptLine(prefix: "/", s.field.text, right: count, row: y, frame: &frame)
            return
        case .title(let p):
            let prefix: String
            switch p.purpose {
            case .add: prefix = "New row title: "
            case .rename: prefix = "Rename to: "
            }
            drawPromptLine(prefix: prefix, p.field.text, right: "↵ ok  esc cancel", row: y, frame: &frame)
            return
        case .confirmDelete(let path):
            let id = source.node(at: path)
            let title = id.map { presenter.row(for: $0).title } ?? path.description
            let below = id.map { source.childCount(of: $0) } ?? 0
            let what = below == 0 ? "“\(title)”" : "“\(title)” and everything below it"
            drawPromptLine(prefix: "Delete \(what)? (y/n) ", "", right: "", row: y, frame: &frame)
            return
        case .filter(let p):
            if let error = p.error { frame.put(error, row: y - 1, column: 1, width: width - 2, style: Style.bold.colored(1)) }
            drawPromptLine(prefix: width >= 60 ? "Filter (length>6:00 and genre=Rock): " : "Filter: ", p.field.text, right: "↵ apply  esc cancel", row: y, frame: &frame)
            return
        case .fields(let p):
            let hints = (p.inputs.count > 1 ? "Tab/↑↓ field  " : "") + "↵ save  esc cancel"
            frame.put(hints, row: y, column: max(1, width - 1 - DisplayWidth.of(hints)), width: width - 2, style: .dim)
            return
        case nil:
            break
        }
        let (position, path) = statusPosition
        var left = position.isEmpty ? "" : position + "  "
        left += path
        let leftText = TextFitting.truncate(left, to: max(1, width / 2 - 1))
        let x = frame.put(leftText, row: y, column: 1, style: .bold) + 2
        let rightWidth = width - x - 1
        guard rightWidth > 0 else { return }
        if let message {
            frame.put(message.text, row: y, column: x, width: rightWidth, style: message.isError ? Style.bold.colored(1) : .plain)
        } else {
            var hints = ""
            for hint in keyHints {
                let next = hints.isEmpty ? hint : hints + "  " + hint
                if DisplayWidth.of(next) > rightWidth { break }
                hints = next
            }
            frame.put(hints, row: y, column: width - 1 - DisplayWidth.of(hints), width: rightWidth, style: .dim)
        }
    }

    func drawPromptLine(prefix: String, _ text: String, right: String, row y: Int, frame: inout Frame) {
        let rightWidth = DisplayWidth.of(right)
        if rightWidth > 0, rightWidth < width / 2 { frame.put(right, row: y, column: width - rightWidth - 1, width: rightWidth, style: .dim) }
        let x = frame.put(prefix, row: y, column: 0, style: .bold)
        let room = max(1, width - x - rightWidth - 3)
        let shown = TextFitting.truncateHead(text, to: room)
        let end = frame.put(shown, row: y, column: x, width: room)
        frame.cursor = (y, min(end, width - 1))
    }

    /// `selected/count` and the TreePath of the current node.
    var statusPosition: (String, String) {
        let id = currentNode
        let path = source.path(of: id)
        let pathText = path.isRoot ? "/" : path.description
        if mode == .outline {
            if outlineDetail != nil { return ("", pathText) }
            let count = outline.visibleCount
            return (count == 0 ? "0/0" : "\(outlinePosition.selected + 1)/\(count)", pathText)
        }
        switch navigator.top {
        case .detail: return ("", pathText)
        case .level(let n):
            let count = presenter.rowCount(of: n)
            let filtered = filterNote(of: n).map { " " + $0 } ?? ""
            return ((count == 0 ? "0/0" : "\(positions[positions.count - 1].selected + 1)/\(count)") + filtered, count == 0 ? (source.path(of: n).isRoot ? "/" : source.path(of: n).description) : pathText)
        }
    }

    /// Key hints, most useful first; the status line shows as many as fit.
    var keyHints: [String] {
        switch mode {
        case .outline:
            if outlineDetail != nil { return editHints + ["⌫ back", "↑↓ scroll", "y copy path", "q quit"] }
            return editHints + ["␣ expand", "E/C all", enterRunsAction ? "i detail" : "↵ open", "/ search", ": go to", "y copy path", "o drill-down", "q quit"]
        case .drillDown, .columns:
            if navigator.top.isDetail { return editHints + ["⌫ back", "↑↓ scroll", "y copy path", "o outline", "q quit"] }
            var sectioned = false, filtered = false
            if case .level(let n) = navigator.top { sectioned = sections(of: n) != nil; filtered = presenter.filter(of: n) != nil }
            return editHints + [enterRunsAction ? "i detail" : "↵ open", "⌫ back"] + (sectioned ? ["[ ] section"] : []) + ["/ search", ": go to", filtered ? "F all rows" : "f filter", "y copy path", "o outline", mode == .columns ? "c list" : "c columns", "q quit"]
        }
    }

    /// Whether Enter on the current row runs an action (a button or `select: action:`) instead of opening it.
    var enterRunsAction: Bool {
        guard editor != nil, currentNode != source.root else { return false }
        let row = presenter.row(for: currentNode)
        if case .action = row.select { return true }
        return row.controls.contains { $0.control.kind == .button }
    }

    /// With `--editable`: the selected row's controls first, then the editing keys.
    var editHints: [String] {
        guard editor != nil else { return [] }
        var hints: [String] = []
        let id = currentNode
        if id != source.root {
            let row = presenter.row(for: id)
            if row.controls.contains(where: { $0.control.kind == .switch }) { hints.append("␣ switch") }
            if row.controls.contains(where: { $0.control.kind == .slider || $0.control.kind == .stepper }) { hints.append("+/- slider") }
            let buttons = row.controls.filter { $0.control.kind == .button }
            if case .action(let name) = row.select { hints.append("↵ \(name)") }
            else if let first = buttons.first { hints.append("↵ \(first.control.label)") }
            if buttons.count > 1 { hints.append("1-\(buttons.count) buttons") }
        }
        return hints + ["e edit", "a add", "r rename", "d delete", "J/K move", "u undo"]
    }
}
