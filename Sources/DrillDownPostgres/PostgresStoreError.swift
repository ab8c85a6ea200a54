import DrillDownCore
import DrillDownStore
import PostgresNIO

/// Why the PostgreSQL store could not do something, with where (the database URL, no password).
public struct PostgresStoreError: Error, Sendable, CustomStringConvertible {
    /// The database, as ``PostgresLocation/description``.
    public var location: String
    /// What went wrong, for people.
    public var message: String
    /// Whether the server could not be reached (down, restarting, refusing connections): a
    /// request may succeed later; otherwise the request itself failed.
    public var unavailable: Bool
    /// The change's own failure (another writer got there first), when that is what happened.
    public var conflict: EditError?
    /// Whether the connection failed (or the deadline passed) while COMMIT was under way, so the
    /// transaction may or may not have committed.
    public var outcomeUnknown = false
    /// The outcome an earlier step recorded under the step's key (nothing was done this time).
    public var recorded: StepOutcome?

    public init(_ location: PostgresLocation, _ message: String, unavailable: Bool = false) {
        self.location = location.description
        self.message = message
        self.unavailable = unavailable
    }

    /// Describes any error of postgres-nio or NIO met while talking to `location`.
    init(_ location: PostgresLocation, _ error: any Error) {
        if let known = error as? PostgresStoreError {
            self = known
            return
        }
        if let earlier = error as? RecordedStep {
            self.init(location, "this step's Idempotency-Key was recorded already")
            recorded = earlier.outcome
            return
        }
        if let edit = error as? EditError {
            self.init(location, edit.message)
            conflict = edit
            return
        }
        if let store = error as? StoreError {
            self.init(location, store.message)
            return
        }
        if let late = error as? CallTimedOut {
            self.init(location, "PostgreSQL did not answer within \(location.timeout) (\(late))", unavailable: true)
            return
        }
        if error is PostgresDecodingError {
            self.init(location, "a column does not hold what a tree table's does (\(String(describing: error).prefix(200)))")
            return
        }
        if let psql = error as? PSQLError {
            if psql.code == .server, let info = psql.serverInfo {
                let state = info[.sqlState] ?? ""
                // Class 08: connection exceptions; 57P0x: the server is shutting down or starting.
                let down = state.hasPrefix("08") || state.hasPrefix("57P")
                self.init(location, info[.message] ?? "server error \(state)", unavailable: down)
            } else {
                self.init(location, "PostgreSQL is unreachable (\(psql.code))", unavailable: true)
            }
            return
        }
        self.init(location, "PostgreSQL is unreachable (\(error))", unavailable: true)
    }

    public var description: String { "\(location): \(message)" }

    /// As an ``EditError``: `.unavailable` (the web answers 503) or `.invalid`; nothing was changed.
    var editError: EditError {
        if outcomeUnknown {
            return EditError(
                "the database stopped answering while the change was being committed (\(message)); it may or may not have been saved. "
                    + "Retry with the same Idempotency-Key to learn which, or reload to see the data", reason: .unknownOutcome)
        }
        return unavailable
            ? EditError("the database is unreachable (\(message)); nothing was changed, try again when it is back", reason: .unavailable)
            : EditError("could not write \(location): \(message); nothing was changed")
    }
}
