/// A key press, decoded from the bytes a terminal sends.
public enum Key: Hashable, Sendable, CustomStringConvertible {
    /// A printable character (including space).
    case character(Character)
    /// A control key, e.g. `.control("c")` for Ctrl-C.
    case control(Character)
    case up, down, left, right
    case home, end, pageUp, pageDown
    case enter, tab, backTab, backspace, delete, escape
    /// A function key, F1–F12.
    case function(Int)
    /// Text pasted while bracketed paste is on (between `ESC[200~` and `ESC[201~`): typed into
    /// an open prompt as text, never run as keys.
    case paste(String)
    /// A sequence the decoder does not know (ignored by the app).
    case unknown

    public var description: String {
        switch self {
        case .character(" "): "Space"
        case .character(let c): String(c)
        case .control(let c): "Ctrl-\(c)"
        case .up: "Up"
        case .down: "Down"
        case .left: "Left"
        case .right: "Right"
        case .home: "Home"
        case .end: "End"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .enter: "Enter"
        case .tab: "Tab"
        case .backTab: "BackTab"
        case .backspace: "Backspace"
        case .delete: "Delete"
        case .escape: "Esc"
        case .function(let n): "F\(n)"
        case .paste(let text): "Paste(\(text.utf8.count) bytes)"
        case .unknown: "?"
        }
    }
}
