import DrillDownCore
import DrillDownStore
import NIOConcurrencyHelpers
import NIOCore
import PostgresNIO

/// The ``DrillDownStore/TreeTableDatabase`` of a tree table in PostgreSQL (see
/// ``PostgresTreeStore``): each step one transaction on the write connection that first takes
/// the table's next revision, the idempotency keys in `<table>_keys`, other instances' commits
/// heard through the ``PostgresListener`` or polled.
public struct PostgresTreeDatabase: TreeTableDatabase {
    /// The table edited.
    public let table: PostgresTreeTable
    /// Follows other instances' NOTIFY (`nil` when the store was opened without listening).
    let listener: PostgresListener?
    /// What refresh last saw (shared by the store's copies).
    let polling = RefreshSchedule()
    /// How often a refresh asks the database even when no notification came.
    var pollInterval: Duration = .seconds(2)

    init(table: PostgresTreeTable, listener: PostgresListener?) {
        self.table = table
        self.listener = listener
    }

    /// Takes the next revision first (`UPDATE … RETURNING`, which holds the revision row until
    /// the commit, so writers of the table go one after another) and announces it (NOTIFY is
    /// delivered at the commit, or never). Then a `key` is looked up (a step with the same key on
    /// another instance has committed or rolled back by then) and, after `body`, recorded.
    ///
    /// The step's history record is sent without waiting for its answer: the COMMIT follows it
    /// on the connection, and the caller waits once for both (under load each wait for the
    /// server costs a thread's wake-up, worth more than the round trip). When the INSERT failed,
    /// the server rolled the transaction back at the COMMIT, and the step fails with its error.
    public func transaction<T>(key: StepKey?, paths: (T) -> [TreePath], _ body: (TreeTableTransaction) throws -> T) throws -> T {
        let table = table
        let location = table.location
        let logger = table.session.logger
        // Why the record's INSERT failed, set on the connection's event loop before the COMMIT's answer.
        let recordFailure = NIOLockedValueBox<(any Error)?>(nil)
        do {
            let result = try table.session.transaction { connection in
                // The NOTIFY goes in the same statement (one round trip less).
                let next = try connection.rows(
                    """
                    WITH r AS (UPDATE \(unescaped: location.table)_meta SET value = (value::bigint + 1)::text WHERE key = 'revision' RETURNING value)
                    SELECT value FROM (SELECT value, pg_notify(\(location.channel), value) FROM r) AS announced
                    """, logger)
                guard let text = try next.first?.decode(String.self), let revision = Int64(text) else {
                    throw EditError("table '\(location.table)' has no revision row; it is not a DrillDown tree table")
                }
                if let key, let earlier = try table.recordedStep(key.key, connection) { throw RecordedStep(outcome: earlier) }
                let writer = PostgresRowWriter(connection: connection, table: location.table, logger: logger)
                let result = try body(
                    TreeTableTransaction(
                        writer: writer, queries: queries(connection), revision: revision,
                        recordHistory: { record in
                            try table.sendHistory(record, connection).whenFailure { error in recordFailure.withLockedValue { $0 = error } }
                        }))
                if let key { try table.record(key, paths: paths(result), connection) }
                return result
            }
            // The INSERT was answered before the COMMIT: a failure rolled the step back.
            if let failure = recordFailure.withLockedValue({ $0 }) { throw failure }
            return result
        } catch {
            if let earlier = (error as? PostgresStoreError)?.recorded { throw RecordedStep(outcome: earlier) }
            // A statement after a failed INSERT fails as "current transaction is aborted": the INSERT's error says why.
            if let failure = recordFailure.withLockedValue({ $0 }) { throw failure }
            throw error
        }
    }

    public func current(_ shown: TreeTableSource, renewing: Bool) throws -> TreeTableSource {
        try table.session.run { connection in renewing ? try shown.renewed(queries(connection)) : try shown.current(in: queries(connection)) }
    }

    /// When a newer revision than `known` was announced, the listener reconnected (it may have
    /// missed some), or every ``pollInterval``. Its own steps' notifications are not news.
    public func refreshDue(known: Int64) -> Bool {
        polling.due(listener, every: pollInterval) { now, then in now.generation != then.generation || now.announced > known }
    }

    public func readiness() -> String? { table.ping() }

    public var news: AsyncStream<Void>? { listener?.news }

    /// `.unavailable` when the server is away, `.unknownOutcome` when it went away during the
    /// COMMIT, the store's own ``EditError`` (a conflict) as it is.
    public func editError(_ error: any Error) -> EditError {
        let failure = PostgresStoreError(table.location, error)
        return failure.conflict ?? failure.editError
    }

    func queries(_ connection: PostgresConnection) -> PostgresNodeRows.Queries {
        PostgresNodeRows.Queries(connection: connection, table: table.location.table, counts: true, logger: table.session.logger)
    }
}
