/// Another user on the level a reader looks at (see ``Presence/visitors(of:for:mayRead:)``).
public struct PresenceVisitor: Sendable, Equatable {
    /// The user's name.
    public var user: String
    /// The rows of the level they are editing, in path order (usually none or one).
    public var editing: [TreePath]

    public init(user: String, editing: [TreePath] = []) {
        self.user = user
        self.editing = editing
    }

    /// The one or two letters that stand for the user: ``initials(of:)`` of their name.
    public var initials: String { Self.initials(of: user) }

    /// The letters that stand for `name`, upper-cased: the first letters of its first and last
    /// words ("ana lima", "ana.lima" → "AL"), or the first two letters of a one-word name
    /// ("ana" → "AN"), or the name itself when shorter.
    public static func initials(of name: String) -> String {
        let words = name.split { !$0.isLetter && !$0.isNumber }
        guard let first = words.first else { return String(name.prefix(2)).uppercased() }
        if words.count > 1, let last = words.last?.first, let initial = first.first { return String([initial, last]).uppercased() }
        return String(first.prefix(2)).uppercased()
    }
}
