import DrillDownCore

/// Columns mode: Miller columns of the current path (each level of the drill-down stack, then a
/// preview of the selected row), as many as fit the width. Keys are those of drill-down mode.
extension Browser {
    /// The narrowest a column may get before earlier columns are scrolled off to the left.
    static let minimumColumnWidth = 22

    enum Column: Equatable {
        case level(NodeID, ListPosition?, active: Bool)
        case detail(NodeID, scroll: Int)
    }

    /// The columns of the current path, leftmost first, before fitting.
    var columns: [Column] {
        var result: [Column] = []
        let stack = navigator.stack
        for (k, screen) in stack.enumerated() {
            switch screen {
            case .level(let n): result.append(.level(n, positions[k], active: k == stack.count - 1))
            case .detail(let n): result.append(.detail(n, scroll: positions[k].scroll))
            }
        }
        if case .level(let n) = navigator.top {
            if let child = presenter.child(of: n, at: positions[positions.count - 1].selected) {
                if case .pushedLevel = navigator.destination(of: child) {
                    result.append(.level(child, nil, active: false))
                } else {
                    result.append(.detail(child, scroll: 0))
                }
            }
        }
        return result
    }

    func drawColumns(in area: Area, frame: inout Frame) {
        let all = columns
        let fit = max(1, (area.width + 1) / (Self.minimumColumnWidth + 1))
        let shown = Array(all.suffix(fit))
        let n = shown.count
        let columnWidth = (area.width - (n - 1)) / n
        var left = area.left
        for (i, column) in shown.enumerated() {
            let w = i == n - 1 ? area.left + area.width - left : columnWidth
            let sub = Area(top: area.top, left: left, width: w, height: area.height)
            switch column {
            case .level(let node, let position, let active):
                drawLevel(node, position: position, active: active, in: sub, frame: &frame)
            case .detail(let node, let scroll):
                drawDetail(node, scroll: scroll, in: sub, frame: &frame)
            }
            if i < n - 1 {
                for y in area.top ..< area.top + area.height { frame.put("│", row: y, column: left + w, width: 1, style: .dim) }
            }
            left += w + 1
        }
    }
}
