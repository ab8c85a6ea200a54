/// The selected row and the first visible row of a list, kept consistent with its length and height.
public struct ListPosition: Equatable, Sendable {
    /// The selected row.
    public var selected: Int
    /// The first visible row.
    public var scroll: Int

    /// Creates a position.
    public init(selected: Int = 0, scroll: Int = 0) {
        self.selected = selected
        self.scroll = scroll
    }

    /// Moves the selection to `row` (clamped to `0 ..< count`) and scrolls just enough to show it.
    /// - Complexity: O(1)
    public mutating func select(_ row: Int, count: Int, visible: Int) {
        selected = count == 0 ? 0 : min(max(0, row), count - 1)
        reveal(count: count, visible: visible)
    }

    /// Scrolls just enough to show the selection, and never past the end.
    public mutating func reveal(count: Int, visible: Int) {
        let visible = max(1, visible)
        if selected < scroll { scroll = selected }
        if selected >= scroll + visible { scroll = selected - visible + 1 }
        scroll = max(0, min(scroll, count - visible))
    }

    /// Shows the selection near the middle of the list, as after a jump.
    public mutating func center(count: Int, visible: Int) {
        scroll = selected - max(1, visible) / 3
        reveal(count: count, visible: visible)
    }

    /// Moves by a page (`pages` may be negative) keeping the selection's place on screen.
    public mutating func page(_ pages: Int, count: Int, visible: Int) {
        let step = max(1, visible - 1) * pages
        let offset = selected - scroll
        selected = count == 0 ? 0 : min(max(0, selected + step), count - 1)
        scroll = selected - offset
        reveal(count: count, visible: visible)
    }
}
