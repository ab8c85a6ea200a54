import DrillDownCore

/// The database under a ``TreeTableStore``: where a step's transaction runs, how other writers'
/// commits are noticed, and what its failures mean. SQLite (``SQLiteTreeDatabase``) and
/// PostgreSQL (`PostgresTreeDatabase` in DrillDownPostgres) each provide one; the store keeps
/// everything else (undo and redo, the history, conflicts, idempotency keys) once for both.
public protocol TreeTableDatabase: Sendable {
    /// Runs `body` in one write transaction, after every other writer's step (it waits for
    /// theirs); commits when `body` returns, rolls back when it throws.
    ///
    /// With a `key`, a database shared by several processes looks it up inside the transaction,
    /// once no other step with that key can be under way: when it was recorded already it throws
    /// ``RecordedStep`` (nothing is changed); else it records the key with `paths` of the result
    /// in the same transaction. A database that keeps no keys ignores them (the model remembers
    /// keys itself).
    func transaction<T>(key: StepKey?, paths: (T) -> [TreePath], _ body: (TreeTableTransaction) throws -> T) throws -> T
    /// `shown` when no other writer committed since it was taken, else a new snapshot (with
    /// `renewing`, always a new one), read outside any write transaction.
    func current(_ shown: TreeTableSource, renewing: Bool) throws -> TreeTableSource
    /// Whether asking the database for other writers' commits is worth it now (a database that
    /// hears of changes, or polls, says when); `known` is the version the snapshot shows.
    func refreshDue(known: Int64) -> Bool
    /// Whether the database answers (for `/readyz`): `nil`, or why not.
    func readiness() -> String?
    /// An element whenever another writer announced a change: when to refresh without waiting.
    var news: AsyncStream<Void>? { get }
    /// A failure of ``transaction(key:paths:_:)`` or ``current(_:renewing:)`` as an edit error
    /// (an ``EditError`` thrown by the store's own rules comes back as it is).
    func editError(_ error: any Error) -> EditError
}

/// One open write transaction of a ``TreeTableDatabase``: the row writer and queries a step's
/// ``TreeTableEditor`` runs on, and how to tell whether another writer committed since a snapshot.
public struct TreeTableTransaction {
    /// The reads and writes of a change.
    package let writer: any NodeRowWriter
    /// The queries a snapshot reads through while the transaction is open.
    package let queries: any NodeRowQueries
    /// The revision this step took, when the database counts its commits (PostgreSQL); `nil`
    /// when the version is read (SQLite's `PRAGMA data_version`).
    package let revision: Int64?

    /// Writes a step's history record in this transaction (the database's history table).
    package let recordHistory: ((HistoryRecord) throws -> Void)?

    package init(writer: any NodeRowWriter, queries: any NodeRowQueries, revision: Int64?, recordHistory: ((HistoryRecord) throws -> Void)? = nil) {
        self.writer = writer
        self.queries = queries
        self.revision = revision
        self.recordHistory = recordHistory
    }

    /// The table as the step sees it: `shown` when nobody else committed since it was taken (no
    /// read with a revision, one `data_version` without), else a new snapshot; and the version
    /// the step's result carries.
    func now(_ shown: TreeTableSource) throws -> (source: TreeTableSource, version: Int64) {
        guard let revision else {
            let now = try shown.current(in: queries)
            return (now, now.version)
        }
        // The revision went up by one (ours) when nobody committed since the snapshot was taken.
        return (shown.version == revision - 1 ? shown : try shown.renewed(queries), revision)
    }
}

/// Thrown inside a step's transaction when its key was recorded already: rolls it back, and the
/// store reports the recorded outcome as ``TreeTableStore/replayed``.
package struct RecordedStep: Error {
    package var outcome: StepOutcome

    package init(outcome: StepOutcome) { self.outcome = outcome }
}

extension StepOutcome {
    /// Paths as one text, as a database records them with a key: each one after a `/` (the root
    /// is a lone `/`).
    package static func text(_ paths: [TreePath]) -> String { paths.map { "/" + $0.description }.joined() }

    /// The paths ``text(_:)`` wrote.
    package static func paths(_ text: String) -> [TreePath] {
        text.split(separator: "/", omittingEmptySubsequences: false).dropFirst().compactMap { TreePath($0) }
    }
}
