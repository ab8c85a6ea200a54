/// An idempotency key for one step (the web API's `Idempotency-Key` header): a request retried
/// with the same key gets the first attempt's outcome instead of being applied twice.
///
/// `request` describes what was asked (the operation, its path and fields), so a key used again
/// for something else is refused (``EditError/Reason/keyReused``) rather than answered with an
/// unrelated outcome. A store shared by several processes (a PostgreSQL or SQLite tree table)
/// records the key in the step's own transaction, so a retry sent to another one is recognised too; otherwise the
/// ``DocumentModel`` remembers keys for the life of the process.
///
/// ```swift
/// let key = StepKey("4f1c…", request: "add 3 title=Ringtone")
/// let first = try await model.apply(changes, key: key)
/// let again = try await model.apply(changes, key: key)    // the same paths; nothing applied
/// ```
public struct StepKey: Sendable, Hashable {
    /// The client's key (at most ``maxLength`` bytes).
    public var key: String
    /// What was asked with it.
    public var request: String

    /// The longest key accepted, in UTF-8 bytes.
    public static let maxLength = 200

    /// Creates a key for `request`.
    public init(_ key: String, request: String) {
        self.key = key
        self.request = request
    }
}

/// What a step done under a ``StepKey`` did, as recorded with the key.
public struct StepOutcome: Sendable, Equatable {
    /// The request the key was first used for (``StepKey/request``).
    public var request: String
    /// The paths the step affected.
    public var paths: [TreePath]
    /// Whether this outcome was given back for a retry (nothing was applied by it).
    public var replayed: Bool

    /// Creates an outcome.
    public init(request: String, paths: [TreePath], replayed: Bool = false) {
        self.request = request
        self.paths = paths
        self.replayed = replayed
    }

    /// This outcome for `key`: itself when the key was used for the same request, else the error.
    public func checked(for key: StepKey) throws(EditError) -> StepOutcome {
        guard request == key.request else {
            throw EditError("the Idempotency-Key '\(key.key)' was already used for another request (\(request))", reason: .keyReused)
        }
        var replay = self
        replay.replayed = true
        return replay
    }
}
