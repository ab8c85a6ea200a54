import DrillDownCore

/// How a row is drawn, shared by every list: title left, subtitle and controls right, `›` when it drills.
extension Browser {
    enum Highlight {
        case none
        /// The selected row of the list that has the keyboard.
        case active
        /// The selected row of a list on the way to the active one (columns mode).
        case trail
    }

    /// Controls shown read-only: `[x]`/`[ ]` switches, `[=====-----] 50` sliders, `[Play]` buttons.
    static func controlsText(_ controls: [BoundControl], sliderWidth: Int = 10) -> String {
        controls.map { bound -> String in
            let c = bound.control
            switch c.kind {
            case .switch: return (bound.value.lowercased() == "true" || bound.value == "1" || bound.value.lowercased() == "yes") ? "[x]" : "[ ]"
            case .button: return "[\(c.label)]"
            case .slider, .stepper:
                let v = Double(bound.value) ?? c.min
                let span = c.max - c.min
                let filled = span > 0 ? Int(((v - c.min) / span * Double(sliderWidth)).rounded()) : 0
                let n = min(max(0, filled), sliderWidth)
                let number = v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
                if c.kind == .stepper { return "[-] \(number) [+]" }
                return "[" + String(repeating: "=", count: n) + String(repeating: "-", count: sliderWidth - n) + "] " + number
            }
        }.joined(separator: " ")
    }

    /// Draws one row: `prefix` (indentation and outline markers), title, then right-aligned subtitle, controls and accessory.
    func drawRow(_ row: Row, prefix: String, at y: Int, left: Int, width: Int, highlight: Highlight, frame: inout Frame) {
        guard width > 2 else { return }
        var accessory = ""
        if row.hasDetailButton { accessory += "ⓘ" }
        if row.drills { accessory += accessory.isEmpty ? "›" : " ›" }
        var trailing: [String] = []
        if !row.subtitle.isEmpty { trailing.append(row.subtitle) }
        if !row.controls.isEmpty { trailing.append(Self.controlsText(row.controls, sliderWidth: width >= 60 ? 10 : 5)) }
        let inner = width - 2
        let accessoryWidth = DisplayWidth.of(accessory)
        var right = trailing.joined(separator: "  ")
        let rightBudget = max(0, (inner - accessoryWidth) * 45 / 100)
        right = TextFitting.truncate(right, to: rightBudget)
        let rightWidth = DisplayWidth.of(right)
        let prefixWidth = DisplayWidth.of(prefix)
        let titleWidth = max(1, inner - prefixWidth - rightWidth - accessoryWidth - (rightWidth > 0 ? 2 : 0) - (accessoryWidth > 0 ? 1 : 0))
        let base: Style = highlight == .trail ? .bold : .plain
        var x = left + 1
        x = frame.put(prefix, row: y, column: x, width: prefixWidth, style: base.with(.dim))
        frame.put(row.title, row: y, column: x, width: titleWidth, style: base)
        var rx = left + 1 + inner - accessoryWidth
        if accessoryWidth > 0 { frame.put(accessory, row: y, column: rx, width: accessoryWidth, style: base) }
        if accessoryWidth > 0 { rx -= 1 }
        if rightWidth > 0 { frame.put(right, row: y, column: rx - rightWidth, width: rightWidth, style: base.with(.dim)) }
        switch highlight {
        case .active: frame.paint(row: y, column: left, count: width, style: .reverse)
        case .trail: frame.paint(row: y, column: left, count: width, style: Style.underline)
        case .none: break
        }
    }
}
