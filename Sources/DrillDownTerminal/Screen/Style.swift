/// How a cell is drawn: a few SGR attributes and an optional foreground colour.
public struct Style: Hashable, Sendable {
    /// Attribute bits.
    public var flags: UInt8
    /// An ANSI colour index (0–7) for the foreground, or `nil` for the default.
    public var color: UInt8?

    /// Creates a style.
    public init(flags: UInt8 = 0, color: UInt8? = nil) {
        self.flags = flags
        self.color = color
    }

    /// The terminal's default look.
    public static let plain = Style()
    /// Bold.
    public static let bold = Style(flags: 1)
    /// Dim (faint).
    public static let dim = Style(flags: 2)
    /// Reverse video: the selected row.
    public static let reverse = Style(flags: 4)
    /// Underline.
    public static let underline = Style(flags: 8)

    /// Both styles' attributes; `other`'s colour wins.
    public func with(_ other: Style) -> Style { Style(flags: flags | other.flags, color: other.color ?? color) }

    /// This style in `color` (an ANSI index: 1 red, 2 green, 3 yellow, 4 blue, 5 magenta, 6 cyan).
    public func colored(_ color: UInt8) -> Style { Style(flags: flags, color: color) }

    /// The SGR sequence that selects this style from a reset state; colour is left out when `noColor`.
    func sgr(noColor: Bool) -> String {
        var codes = ["0"]
        if flags & 1 != 0 { codes.append("1") }
        if flags & 2 != 0 { codes.append("2") }
        if flags & 4 != 0 { codes.append("7") }
        if flags & 8 != 0 { codes.append("4") }
        if let color, !noColor { codes.append(String(30 + Int(color))) }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
