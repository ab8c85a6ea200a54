/// Turns frames into terminal output, writing only the cells that changed since the last frame.
///
/// ```swift
/// var renderer = Renderer(noColor: false)
/// let first = renderer.render(frame)     // clears and draws everything
/// let next = renderer.render(changed)    // cursor moves + the changed cells only
/// ```
public struct Renderer: Sendable {
    /// Whether colours are left out (the `NO_COLOR` convention); attributes like reverse stay.
    public let noColor: Bool
    var previous: Frame?
    var cursorShown = false

    /// Creates a renderer that will draw its first frame in full.
    public init(noColor: Bool) { self.noColor = noColor }

    /// Forgets what is on screen, so the next frame is drawn in full (after a resize or a redraw request).
    public mutating func invalidate() { previous = nil }

    /// The bytes that turn the screen from the previous frame into `frame`.
    /// - Complexity: O(cells)
    public mutating func render(_ frame: Frame) -> String {
        var out = ""
        out.reserveCapacity(256)
        let full = previous == nil || previous!.width != frame.width || previous!.height != frame.height
        if cursorShown {
            out += "\u{1B}[?25l"
            cursorShown = false
        }
        if full { out += "\u{1B}[0m\u{1B}[H\u{1B}[2J" }
        var style: Style? = nil
        var at: (Int, Int)? = nil
        let w = frame.width
        frame.cells.withUnsafeBufferPointer { cells in
            let old = full ? nil : previous!.cells
            for r in 0 ..< frame.height {
                var x = 0
                while x < w {
                    let i = r * w + x
                    let cell = cells[i]
                    if let old, old[i] == cell {
                        x += 1
                        continue
                    }
                    var start = x
                    if cell.isContinuation, x > 0 { start = x - 1 }
                    if full, cell == .blank {
                        x += 1
                        continue
                    }
                    if at == nil || at! != (r, start) { out += "\u{1B}[\(r + 1);\(start + 1)H" }
                    let lead = cells[r * w + start]
                    if style != lead.style {
                        out += lead.style.sgr(noColor: noColor)
                        style = lead.style
                    }
                    out.append(lead.text ?? " ")
                    let advance = start + 1 < w && cells[r * w + start + 1].isContinuation ? 2 : 1
                    x = start + advance
                    at = (r, x)
                }
            }
        }
        if style != nil, style != .plain { out += "\u{1B}[0m" }
        if let c = frame.cursor {
            out += "\u{1B}[\(c.row + 1);\(c.column + 1)H\u{1B}[?25h"
            cursorShown = true
        }
        previous = frame
        return out
    }
}
