import DrillDownCore
/// A full screen of cells: what the app draws each time, and what the renderer diffs.
///
/// Text is placed with ``put(_:row:column:width:style:)``, which measures display width,
/// never splits a grapheme, and replaces control characters so data can never emit escape sequences.
///
/// ```swift
/// var frame = Frame(width: 40, height: 10)
/// frame.put("Root › Item 4", row: 0, column: 0)
/// frame.lines[0]    // "Root › Item 4" followed by spaces
/// ```
public struct Frame: Equatable, Sendable {
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Row-major cells.
    public private(set) var cells: [Cell]
    /// Where the terminal cursor should be shown (a prompt's caret), if anywhere.
    public var cursor: (row: Int, column: Int)?

    /// A blank frame.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    public static func == (a: Frame, b: Frame) -> Bool {
        a.width == b.width && a.height == b.height && a.cells == b.cells && a.cursor?.row == b.cursor?.row
            && a.cursor?.column == b.cursor?.column
    }

    /// The cell at `row`, `column`.
    public subscript(row: Int, column: Int) -> Cell { cells[row * width + column] }

    /// Writes `text` from `column` in `row`, clipped to `width` cells (to the right edge when `nil`),
    /// ending in `…` when cut. Returns the column after the last cell written.
    /// - Complexity: O(length of text)
    @discardableResult
    public mutating func put(_ text: String, row: Int, column: Int, width: Int? = nil, style: Style = .plain) -> Int {
        guard row >= 0, row < height, column >= 0, column < self.width else { return column }
        let limit = min(self.width, column + (width ?? self.width))
        guard limit > column else { return column }
        // Control characters from the data never reach the terminal: the core's one rule shows them.
        let fitted = TextFitting.truncate(VisibleText.escaping(text), to: limit - column)
        var x = column
        let base = row * self.width
        for ch in fitted {
            let w = DisplayWidth.of(ch)
            if w == 0 { continue }
            if x + w > limit { break }
            if x > 0, cells[base + x].isContinuation { cells[base + x - 1] = Cell(" ", cells[base + x - 1].style) }
            cells[base + x] = Cell(ch, style)
            if w == 2 { cells[base + x + 1] = .continuation(style) }
            if x + w < self.width, cells[base + x + w].isContinuation { cells[base + x + w] = Cell(" ", style) }
            x += w
        }
        return x
    }

    /// Paints `style` over `count` cells of `row` from `column`, keeping their text (e.g. a selection bar).
    public mutating func paint(row: Int, column: Int = 0, count: Int? = nil, style: Style) {
        guard row >= 0, row < height else { return }
        let lo = max(0, column)
        let hi = min(width, column + (count ?? width))
        guard lo < hi else { return }
        for x in lo ..< hi { cells[row * width + x].style = cells[row * width + x].style.with(style) }
    }

    /// Fills `count` cells of `row` from `column` with `character` in `style`.
    public mutating func fill(row: Int, column: Int = 0, count: Int? = nil, with character: Character = " ", style: Style = .plain) {
        guard row >= 0, row < height else { return }
        let lo = max(0, column)
        let hi = min(width, column + (count ?? width))
        guard lo < hi else { return }
        for x in lo ..< hi { cells[row * width + x] = Cell(character, style) }
    }

    /// The text of each row, for tests and snapshots (wide characters appear once).
    public var lines: [String] {
        (0 ..< height).map { r in
            var s = ""
            for x in 0 ..< width {
                if let t = cells[r * width + x].text { s.append(t) }
            }
            return s
        }
    }

    /// The frame as text, rows joined by newlines with trailing spaces removed.
    public var text: String {
        lines.map { line in
            var l = Substring(line)
            while l.last == " " { l = l.dropLast() }
            return String(l)
        }.joined(separator: "\n")
    }
}
