import DrillDownCore
import DrillDownStore
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// An ``EditingStore`` over a tree table in PostgreSQL that several `drilldown serve` instances
/// share. It is the SQLite tree table's store on another database: the snapshot is a lazy
/// ``DrillDownStore/TreeTableSource`` (the root row when opened, then a page of 100 rows per
/// level shown), and each change is carried out by the same ``DrillDownStore/TreeTableEditor``,
/// writing only the rows it touches (``PostgresRowWriter``).
///
/// Each step is one transaction that first increments the table's revision (`UPDATE … RETURNING`,
/// which holds the revision row until the commit, so writers of the table go one after another),
/// then resolves the change's paths in the table as it is now (a snapshot older than the
/// revision is renewed, and a path that now leads to another row, or a row changed since it was
/// shown, is a ``EditError/Reason/conflict`` that changes nothing), writes its rows and ends with
/// `NOTIFY drilldown_<table>, '<revision>'`, delivered at the commit. An unreachable server is
/// ``EditError/Reason/unavailable``.
///
/// Undo and redo replay the step's recorded row operations inverted or again, refusing (as a
/// conflict) when another instance changed those rows since. Other instances' commits are
/// noticed by ``refresh()``, from the ``PostgresListener`` or a poll every 2 s: the snapshot is
/// renewed (an empty cache, nothing read until shown).
///
/// A step with a ``stepKey`` (the web API's `Idempotency-Key`) records the key and its paths in
/// `<table>_keys` in the same transaction; a step whose key is there already (looked up after
/// the revision row is taken, so a step with the same key on another instance has committed or
/// rolled back by then) changes nothing and reports the recorded outcome as ``replayed``. Keys
/// are kept for a day.
///
/// ```swift
/// let location = try PostgresLocation(url: "postgres://dd@127.0.0.1:55432/db?table=music")
/// var store = try PostgresTreeStore(location)
/// try store.apply([.setAttribute([0], key: "plays", value: Scalar(.integer, "6"))])   // one transaction, one NOTIFY
/// if try store.refresh() { show(store.snapshot) }                                        // another instance wrote
/// ```
public struct PostgresTreeStore: EditingStore {
    public let table: PostgresTreeTable
    /// The presentation schema whose row controls constrain attribute types.
    public var schema: Schema
    /// The current data: a lazy snapshot.
    public private(set) var source: TreeTableSource
    /// How many steps ``undo()`` can go back.
    public var historyLimit = 500
    var undoHistory: [Step] = []
    var redoHistory: [Step] = []
    var listener: PostgresListener?
    /// What refresh last saw; a reference, because a model refreshes a copy and keeps it only when
    /// the data changed.
    let polling = Polling()
    /// How often ``refresh()`` asks the database even when no notification came.
    public var pollInterval: Duration = .seconds(2)
    public var stepKey: StepKey?
    public private(set) var replayed: StepOutcome?

    /// One undoable step: the changes as given and the row operations that carried them out.
    struct Step: Sendable {
        var edit: EditStep
        var operations: [RowOperation]
    }

    /// Opens the table for editing (with `upgrading`, upgrading a table written by an older
    /// version once); with `listen`, follows other instances' changes through NOTIFY.
    public init(
        _ location: PostgresLocation, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String? = nil,
        schema: Schema = Schema(), listen: Bool = true, upgrading: Bool = true
    ) throws(PostgresStoreError) {
        table = try PostgresTreeTable(location)
        if upgrading { try table.upgrade() }
        source = try table.source(mode: mode, keys: keys, name: name)
        if listen { listener = try PostgresListener(location) }
        try table.prepareKeys()
        self.schema = schema
    }

    /// The revision the snapshot shows.
    public var revision: Int64 { source.version }
    public var snapshot: any Source { source }
    public var canUndo: Bool { !undoHistory.isEmpty }
    public var canRedo: Bool { !redoHistory.isEmpty }

    public mutating func apply(_ changes: [Change]) throws(EditError) -> [TreePath] {
        guard !changes.isEmpty else { throw EditError("no change to apply") }
        let current = source
        let schema = schema
        guard
            let (paths, operations, next) = try transaction(paths: \.0, { writer, q, revision in
                // The snapshot stays when nobody committed since it was taken (the revision went up by one: ours).
                let now = current.version == revision - 1 ? current : try current.renewed(q)
                return try TreeTableEditor.step(changes, shown: current, now: now, writer: writer, queries: q, schema: schema, version: revision)
            })
        else { return replayed?.paths ?? [] }
        record(changes, paths, operations, next)
        return paths
    }

    /// Derives the changes inside the step's transaction, from the table as it is then (after every
    /// other instance's step, which the revision row queues): an increment counts every press.
    public mutating func apply(deriving derive: (any Source) throws(EditError) -> [Change]) throws(EditError) -> (changes: [Change], paths: [TreePath]) {
        let current = source
        let schema = schema
        guard
            let (changes, paths, operations, next) = try transaction(paths: \.1, { writer, q, revision in
                let now = current.version == revision - 1 ? current : try current.renewed(q)
                return try TreeTableEditor.step(deriving: derive, now: now, writer: writer, queries: q, schema: schema, version: revision)
            })
        else { return ([], replayed?.paths ?? []) }
        record(changes, paths, operations, next)
        return (changes, paths)
    }

    /// Keeps a step that was written: the new snapshot, and the step for undo.
    mutating func record(_ changes: [Change], _ paths: [TreePath], _ operations: [RowOperation], _ next: TreeTableSource) {
        source = next
        undoHistory.append(Step(edit: EditStep(changes: changes, paths: paths), operations: operations))
        if undoHistory.count > historyLimit { undoHistory.removeFirst(undoHistory.count - historyLimit) }
        redoHistory.removeAll()
    }

    public mutating func undo() throws(EditError) -> EditStep? {
        guard let step = undoHistory.last else { return nil }
        guard try replay(step.operations.reversed().map(\.inverse), paths: step.edit.paths) else { return nil }
        undoHistory.removeLast()
        redoHistory.append(step)
        return step.edit
    }

    public mutating func redo() throws(EditError) -> EditStep? {
        guard let step = redoHistory.last else { return nil }
        guard try replay(step.operations, paths: step.edit.paths) else { return nil }
        redoHistory.removeLast()
        undoHistory.append(step)
        return step.edit
    }

    /// Runs row operations (undo or redo) checked against other writers, then takes a new
    /// snapshot; `false` when the step's key was recorded already (nothing was run).
    mutating func replay(_ operations: [RowOperation], paths: [TreePath]) throws(EditError) -> Bool {
        let current = source
        guard
            let next = try transaction(paths: { _ in paths }, { writer, q, _ in
                for operation in operations { try writer.run(operation, checked: true) }
                return try current.renewed(q)
            })
        else { return false }
        source = next
        return true
    }

    /// Picks up other instances' commits: when a newer revision was announced, the listener
    /// reconnected (it may have missed some), or, every ``pollInterval``, the revision differs.
    public mutating func refresh() throws(EditError) -> Bool {
        let now = ContinuousClock.now
        let state = listener?.state
        let known = revision
        let due = polling.box.withLockedValue { seen -> Bool in
            let news = state.map { $0.generation != seen.generation || $0.announced > known } ?? false
            guard news || now - seen.time >= pollInterval else { return false }
            seen = (now, state?.generation ?? 0)
            return true
        }
        guard due else { return false }
        let current = source
        let next: TreeTableSource
        do { next = try table.session.run { connection in try current.current(in: queries(connection)) } } catch { throw error.editError }
        guard !next.isSnapshot(current) else { return false }
        source = next
        return true
    }

    /// Whether the database answers (for `/readyz`): `nil`, or why not.
    public func readiness() -> String? { table.ping() }

    /// An element whenever another instance announced a change (or the listener reconnected):
    /// when to ``refresh()`` without waiting for the next poll. `nil` without a listener.
    public var news: AsyncStream<Void>? { listener?.news }

    func queries(_ connection: PostgresConnection) -> PostgresNodeRows.Queries {
        PostgresNodeRows.Queries(connection: connection, table: table.location.table, counts: true, logger: table.session.logger)
    }

    /// Runs `body` in one transaction on the write connection, after taking the next revision
    /// (which queues the table's writers) and announcing it (NOTIFY is delivered at the commit). Any error
    /// rolls everything back; a conflict renews the snapshot, so the page that reloads on the 409
    /// shows the data as it is now. With a ``stepKey``, the key is looked up first (`nil`, with
    /// ``replayed`` set, when it was recorded: nothing is changed) and recorded with `paths` of
    /// the result.
    mutating func transaction<T>(
        paths: (T) -> [TreePath],
        _ body: (PostgresRowWriter, PostgresNodeRows.Queries, Int64) throws -> T
    ) throws(EditError) -> T? {
        let location = table.location
        let logger = table.session.logger
        let store = self
        let key = stepKey
        replayed = nil
        do {
            return try table.session.transaction { connection in
                // The NOTIFY goes in the same statement (one round trip less); it is delivered at the commit, or never.
                let next = try connection.rows(
                    """
                    WITH r AS (UPDATE \(unescaped: location.table)_meta SET value = (value::bigint + 1)::text WHERE key = 'revision' RETURNING value)
                    SELECT value FROM (SELECT value, pg_notify(\(location.channel), value) FROM r) AS announced
                    """, logger)
                guard let text = try next.first?.decode(String.self), let revision = Int64(text) else {
                    throw EditError("table '\(location.table)' has no revision row; it is not a DrillDown tree table")
                }
                if let key, let earlier = try store.table.recordedStep(key.key, connection) {
                    throw RecordedStep(outcome: earlier)
                }
                let writer = PostgresRowWriter(connection: connection, table: location.table, logger: logger)
                let result: T
                do { result = try body(writer, store.queries(connection), revision) } catch let conflict as RowOperation.Conflict {
                    throw EditError("\(conflict.message); nothing was changed (reload to see the data as it is now)", reason: .conflict)
                }
                if let key { try store.table.record(key, paths: paths(result), connection) }
                return result
            }
        } catch {
            if let earlier = error.recorded {
                replayed = earlier
                return nil
            }
            if let edit = error.conflict {
                if edit.reason == .conflict { renewAfterConflict() }
                throw edit
            }
            throw error.editError
        }
    }

    /// A fresh snapshot after a conflict (kept as it is when the database cannot be read).
    mutating func renewAfterConflict() {
        let current = source
        if let fresh = try? table.session.run({ connection in try current.renewed(queries(connection)) }) { source = fresh }
    }
}

/// When ``PostgresTreeStore/refresh()`` last asked the database, and which listener connection it had heard from.
final class Polling: Sendable {
    let box = NIOLockedValueBox<(time: ContinuousClock.Instant, generation: Int)>((ContinuousClock.now, 0))
}

extension PostgresTreeStore {
    /// `true` once this store's listener has its LISTEN in place (at once when it has), so a
    /// change made elsewhere from then on is announced to it; `false` without a listener or when
    /// `timeout` passes first.
    public func waitUntilListening(timeout: Duration = .seconds(30)) async -> Bool {
        guard let listener else { return false }
        return await listener.waitUntilListening(timeout: timeout)
    }
}
