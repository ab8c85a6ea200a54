/// A one-line text input for the prompts: typing, Backspace, Ctrl-U (clear) and Ctrl-W (delete a word).
public struct TextField: Equatable, Sendable {
    /// The text typed so far.
    public var text = ""

    /// Creates an empty field.
    public init(text: String = "") { self.text = text }

    /// Applies an editing key; returns whether the text changed.
    public mutating func edit(_ key: Key) -> Bool {
        switch key {
        case .character(let c):
            text.append(c)
        case .backspace:
            guard !text.isEmpty else { return false }
            text.removeLast()
        case .control("u"):
            guard !text.isEmpty else { return false }
            text = ""
        case .control("w"):
            guard !text.isEmpty else { return false }
            while text.last == " " { text.removeLast() }
            while let last = text.last, last != " ", last != "/", last != "." { text.removeLast() }
        default:
            return false
        }
        return true
    }
}
