/// Why a ``Change`` (or undo, redo, action, save) cannot be applied. Nothing is changed when one is thrown.
public struct EditError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path the failing change addressed, when there is one.
    public var path: TreePath?
    /// What went wrong, for people.
    public var message: String

    /// Creates an error.
    public init(_ message: String, at path: TreePath? = nil) {
        self.path = path
        self.message = message
    }

    public var description: String {
        guard let path else { return message }
        return "\(path.isRoot ? "the root" : path.description): \(message)"
    }
}
