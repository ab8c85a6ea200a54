import DrillDownCore

/// An ``EditingStore`` over a tree table that writes each change row by row, in an SQLite file
/// (``SQLiteTreeDatabase``, `TreeTableStore(path:)`) or in PostgreSQL (`PostgresTreeStore`, in
/// DrillDownPostgres): the rules are the same, only the ``TreeTableDatabase`` differs.
///
/// Each step is one write transaction, queued behind every other writer's (SQLite: `BEGIN
/// IMMEDIATE`; PostgreSQL: the table's revision row), and writes only the rows it touches: an
/// insert adds the new row and its members, a rename or an attribute updates (or adds, or
/// deletes) one member row, a delete removes the node's subtree, a move rewrites one row's
/// parent and position. Positions are gapped (see ``TreeTableLayout``), so an insert between two
/// siblings takes the middle position; only when a gap is used up is that one level renumbered.
/// Child counts are kept by triggers. Undo and redo replay the recorded row operations inverted
/// or again, and refuse (with a clear ``EditError``) when another writer changed those rows.
///
/// Other writers are noticed in ``refresh()`` (when the database says one is due) and inside
/// every write transaction, where the paths of the change are resolved again in the table as it
/// is; a path that now leads to another row, or a row another writer changed since this store
/// showed it, refuses the change as a ``EditError/Reason/conflict`` instead of overwriting it,
/// and the snapshot is renewed, so the page that reloads shows the data as it is now.
///
/// A step with a ``stepKey`` hands it to the database, which records it in the step's own
/// transaction (SQLite in `step_keys`, PostgreSQL in `<table>_keys`), so a retry through another
/// process finds it; a step whose key was recorded already changes nothing and reports the
/// recorded outcome as ``replayed``.
///
/// After a step the new ``snapshot`` is a ``TreeTableSource`` with a fresh cache (or, after a
/// rename or attribute change, the old cache with the changed row read again): nothing is reloaded.
///
/// ```swift
/// var store = try TreeTableStore(path: "data.sqlite")
/// try store.apply([.updateTitle([0], title: "First")])    // one UPDATE, one COMMIT
/// try store.undo()
/// let model = DocumentModel(store: store)                   // every front end edits through it
/// ```
public struct TreeTableStore<Database: TreeTableDatabase>: EditingStore {
    /// Where the table is, and how its transactions run.
    package var database: Database
    /// The current data: a lazy snapshot.
    public private(set) var source: TreeTableSource
    /// The presentation schema whose row controls constrain attribute types.
    public var schema: Schema
    /// How many steps ``undo()`` can go back.
    public var historyLimit = 500
    var undoHistory: [Step] = []
    var redoHistory: [Step] = []
    public var stepKey: StepKey?
    public private(set) var replayed: StepOutcome?
    public var historyDraft: HistoryDraft?

    /// One undoable step: the changes as given and the row operations that carried them out.
    struct Step: Sendable {
        var edit: EditStep
        var operations: [RowOperation]
    }

    /// Edits the table `database` holds, starting from `source`, a snapshot of it.
    package init(database: Database, source: TreeTableSource, schema: Schema) {
        self.database = database
        self.source = source
        self.schema = schema
    }

    /// The data as front ends read it: with its JSON values opened when ``openJSON(_:)`` was called.
    public var snapshot: any Source { source.presented }

    /// Opens text values that hold a JSON object or array as subtrees, read and written with
    /// `json`: a change inside one sets the value to the new text, in the step's transaction.
    public mutating func openJSON(_ json: EmbeddedJSON) { source = source.openingJSON(json) }
    public var canUndo: Bool { !undoHistory.isEmpty }
    public var canRedo: Bool { !redoHistory.isEmpty }
    public var history: HistoryState { HistoryState(undo: undoHistory.last?.edit, redo: redoHistory.last?.edit) }

    public mutating func apply(_ changes: [Change]) throws(EditError) -> [TreePath] {
        guard let view = source.presented as? EmbeddedFieldSource else { return try write(changes) }
        let lowered = try view.lower(changes)
        return lowered.paths(try write(lowered.changes))
    }

    /// Writes `changes` (addressed by the rows' paths) as one step.
    mutating func write(_ changes: [Change]) throws(EditError) -> [TreePath] {
        guard !changes.isEmpty else { throw EditError("no change to apply") }
        let current = source
        let schema = schema
        let draft = historyDraft
        guard
            let (paths, operations, next) = try transaction(paths: \.0, { t in
                let (now, version) = try t.now(current)
                let record = Self.recording(changes, draft, now, t)
                let done = try TreeTableEditor.step(changes, shown: current, now: now, writer: t.writer, queries: t.queries, schema: schema, version: version)
                try record?(done.paths)
                return done
            })
        else { return replayed?.paths ?? [] }
        record(changes, paths, operations, next, before: current)
        return paths
    }

    /// Derives the changes inside the step's transaction, from the table as it is then (after
    /// every other writer's step): an action's increment counts every press.
    public mutating func apply(deriving derive: (any Source) throws(EditError) -> [Change]) throws(EditError) -> (changes: [Change], paths: [TreePath]) {
        let current = source
        let schema = schema
        let draft = historyDraft
        guard
            let (changes, paths, operations, next) = try transaction(paths: \.1, { t in
                let (now, version) = try t.now(current)
                guard draft != nil else {
                    return try TreeTableEditor.step(deriving: derive, now: now, writer: t.writer, queries: t.queries, schema: schema, version: version)
                }
                let changes = try derive(now.bound(to: t.queries))
                guard !changes.isEmpty else { throw EditError("no change to apply") }
                let record = Self.recording(changes, draft, now, t)
                let done = try TreeTableEditor.step(changes, shown: now, now: now, writer: t.writer, queries: t.queries, schema: schema, version: version)
                try record?(done.paths)
                return (changes, done.paths, done.operations, done.next)
            })
        else { return ([], replayed?.paths ?? []) }
        record(changes, paths, operations, next, before: current)
        return (changes, paths)
    }

    /// Inside a step's transaction, before the step is written: what writes its history record
    /// once its paths are known (`nil` without a ``historyDraft`` or a history table). The summary
    /// and the inverse read the table as it is before the step (see ``ChangeInverse/readsBefore(_:)``).
    static func recording(_ changes: [Change], _ draft: HistoryDraft?, _ now: TreeTableSource, _ t: TreeTableTransaction) -> (([TreePath]) throws -> Void)? {
        guard let draft, let write = t.recordHistory else { return nil }
        let recorder = draft.recorder(for: changes, before: now.bound(to: t.queries))
        return { paths in try write(recorder(paths)) }
    }

    /// Keeps a step that was written: the new snapshot, and the step for undo, described with
    /// the titles of `before` (the snapshot its paths address).
    mutating func record(_ changes: [Change], _ paths: [TreePath], _ operations: [RowOperation], _ next: TreeTableSource, before: TreeTableSource) {
        source = next
        let edit = EditStep(changes: changes, paths: paths, summary: StepSummary.describe(changes, in: before))
        undoHistory.append(Step(edit: edit, operations: operations))
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
            let next = try transaction(paths: { _ in paths }, { t in
                for operation in operations { try t.writer.run(operation, checked: true) }
                return try current.renewed(t.queries)
            })
        else { return false }
        source = next
        return true
    }

    /// Picks up other writers' commits, when the database says asking is due (SQLite: always;
    /// PostgreSQL: a newer revision was announced, the listener reconnected, or the poll interval passed).
    public mutating func refresh() throws(EditError) -> Bool {
        let current = source
        guard database.refreshDue(known: current.version) else { return false }
        let next: TreeTableSource
        do { next = try database.current(current, renewing: false) } catch { throw database.editError(error) }
        guard !next.isSnapshot(current) else { return false }
        source = next
        return true
    }

    /// Whether the database answers (for `/readyz`): `nil`, or why not.
    public func readiness() -> String? { database.readiness() }

    /// An element whenever another writer announced a change (PostgreSQL's NOTIFY): when to
    /// ``refresh()`` without waiting for the next poll. `nil` without a listener.
    public var news: AsyncStream<Void>? { database.news }

    /// Runs `body` in one write transaction of the database, with the ``stepKey`` (`nil`, with
    /// ``replayed`` set, when the key was recorded already: nothing is changed). Any error rolls
    /// everything back; a conflict renews the snapshot, so the page that reloads on the 409 shows
    /// the data as it is now.
    mutating func transaction<T>(paths: (T) -> [TreePath], _ body: (TreeTableTransaction) throws -> T) throws(EditError) -> T? {
        replayed = nil
        do {
            return try database.transaction(key: stepKey, paths: paths) { t in
                do { return try body(t) } catch let conflict as RowOperation.Conflict {
                    throw EditError("\(conflict.message); nothing was changed (reload to see the data as it is now)", reason: .conflict)
                }
            }
        } catch let earlier as RecordedStep {
            replayed = earlier.outcome
            return nil
        } catch {
            let edit = database.editError(error)
            if edit.reason == .conflict { renewAfterConflict() }
            throw edit
        }
    }

    /// A fresh snapshot after a conflict (kept as it is when the database cannot be read).
    mutating func renewAfterConflict() {
        if let fresh = try? database.current(source, renewing: true) { source = fresh }
    }
}
