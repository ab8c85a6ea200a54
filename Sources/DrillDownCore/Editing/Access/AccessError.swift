/// Why a user may not do something: who, what is missing, and where.
public struct AccessError: Error, Sendable, Equatable, CustomStringConvertible {
    /// For people: names the user, the role they have and the one the action needs.
    public var message: String
    /// Where the refused action was aimed (`nil` when not about one place).
    public var at: TreePath?

    /// An error saying `message`, about the node at `at`.
    public init(message: String, at: TreePath? = nil) {
        self.message = message
        self.at = at
    }

    public var description: String { message }
}
