/// One character cell of the screen.
///
/// A wide character occupies its own cell and the next one, which holds ``continuation``.
public struct Cell: Equatable, Sendable {
    /// The grapheme drawn here; empty for the right half of a wide character.
    public var text: Character?
    /// How it is drawn.
    public var style: Style

    /// Creates a cell.
    public init(_ text: Character?, _ style: Style = .plain) {
        self.text = text
        self.style = style
    }

    /// An empty cell.
    public static let blank = Cell(" ")
    /// The right half of a wide character.
    public static func continuation(_ style: Style) -> Cell { Cell(nil, style) }

    /// Whether this is the right half of a wide character.
    public var isContinuation: Bool { text == nil }
}
