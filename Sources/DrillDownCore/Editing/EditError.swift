/// Why a ``Change`` (or undo, redo, action, save) cannot be applied. Nothing is changed when one is thrown.
public struct EditError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path the failing change addressed, when there is one.
    public var path: TreePath?
    /// What went wrong, for people.
    public var message: String
    /// What kind of failure it is, so a front end can answer it fittingly (the web: 400, 409 or 503).
    public var reason: Reason
    /// The key of the field whose value was refused (a form marks it), when one was.
    public var field: String?

    /// Kinds of failure.
    public enum Reason: Sendable, Equatable {
        /// The change itself is wrong (a bad path, value or index).
        case invalid
        /// Another writer changed or deleted what the change addresses since it was shown.
        case conflict
        /// The storage cannot be reached (a database server is down); try again later.
        case unavailable
        /// The storage stopped answering while the step was being committed: it may or may not have
        /// been stored. A retry with the same ``StepKey`` finds out (and applies it only if it was not).
        case unknownOutcome
        /// The ``StepKey`` was already used for a different request.
        case keyReused
    }

    /// Creates an error.
    public init(_ message: String, at path: TreePath? = nil, reason: Reason = .invalid, field: String? = nil) {
        self.path = path
        self.message = message
        self.reason = reason
        self.field = field
    }

    public var description: String {
        guard let path else { return message }
        return "\(path.isRoot ? "the root" : path.description): \(message)"
    }
}
