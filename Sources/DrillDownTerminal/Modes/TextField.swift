import DrillDownCore

/// A one-line text input for the prompts: typing, pasting, Backspace, Ctrl-U (clear) and Ctrl-W (delete a word).
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
        case .paste(let pasted):
            let line = Self.oneLine(pasted)
            guard !line.isEmpty else { return false }
            text.append(contentsOf: line)
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

    /// Pasted text as one line: line breaks and tabs become spaces, other control characters (see `VisibleText`) are dropped.
    /// - Complexity: O(n)
    static func oneLine(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var lastWasBreak = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\r", "\n":
                if !lastWasBreak { result.append(" ") }
                lastWasBreak = true
                continue
            case "\t": result.append(" ")
            default:
                if !VisibleText.isControl(scalar) { result.append(scalar) }
            }
            lastWasBreak = false
        }
        var line = String(result)
        while line.last == " " { line.removeLast() }
        return line
    }
}
