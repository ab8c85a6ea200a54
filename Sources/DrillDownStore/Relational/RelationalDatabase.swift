import DrillDownCore

/// The database a ``RelationalSource`` reads: a connection per read, or (inside one of the
/// store's write transactions, on that transaction's thread only) the transaction's own.
package protocol RelationalDatabase: Sendable {
    /// Runs `body` with a connection for reading.
    func read<T>(_ body: (any RelationalConnection) throws -> T) throws -> T
}

/// A ``RelationalDatabase`` an editor writes: one transaction per step, serialized with every
/// other writer, and a version that another writer's commit changes.
package protocol RelationalWritableDatabase: RelationalDatabase {
    /// The version now: it differs from the last one seen when another writer committed since.
    func version() throws -> Int64
    /// Whether ``version()`` is worth asking now (a database that hears of changes says when).
    func refreshDue() -> Bool
    /// Runs `body` in one write transaction, after every other writer's (it waits for theirs),
    /// with the version as the transaction sees it; commits when `body` returns, rolls back when
    /// it throws. Returns `body`'s result and the version after the commit.
    func write<T>(_ body: (any RelationalConnection, _ version: Int64) throws -> T) throws -> (T, Int64)
    /// A database failure as an edit error (``EditError/Reason/unavailable`` when the server is away).
    func editError(_ error: any Error, file: String) -> EditError
    /// An element whenever another writer announced a change: when to refresh without waiting.
    var news: AsyncStream<Void>? { get }
}

extension RelationalWritableDatabase {
    package func refreshDue() -> Bool { true }
    package var news: AsyncStream<Void>? { nil }
    package func editError(_ error: any Error, file: String) -> EditError { EditError(StoreError(file: file, error).description) }
}
