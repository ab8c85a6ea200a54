import DrillDownCore
import Foundation
import GRDB

/// An ``EditingStore`` over an SQLite tree table that writes each change row by row.
///
/// Each step runs in one `BEGIN IMMEDIATE` transaction and writes only the rows it touches: an
/// insert adds the new row and its members, a rename or an attribute updates (or adds, or
/// deletes) one member row, a delete removes the node's subtree, a move rewrites one row's
/// parent and position. Positions are gapped (see ``TreeTableLayout``), so an insert between two
/// siblings takes the middle position; only when a gap is used up is that one level renumbered.
/// Child counts are kept by triggers. Undo and redo replay the recorded row operations inverted
/// or again, and refuse (with a clear ``EditError``) when another writer changed those rows.
///
/// Other writers (another `drilldown`, the `sqlite3` shell) are noticed through `PRAGMA
/// data_version`: in ``refresh()``, and inside every write transaction, where the paths of the
/// change are resolved again in the database as it is; a path that now leads to another row, or
/// a row another writer changed since this store showed it, refuses the change instead of
/// overwriting it.
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
public struct TreeTableStore: EditingStore {
    /// The current data: a lazy snapshot.
    public private(set) var source: TreeTableSource
    /// The file's rows (the source's reader).
    let rows: SQLiteNodeRows
    /// The presentation schema whose row controls constrain attribute types.
    public var schema: Schema
    /// How many steps ``undo()`` can go back.
    public var historyLimit = 500
    var undoHistory: [Step] = []
    var redoHistory: [Step] = []

    /// One undoable step: the changes as given and the row operations that carried them out.
    struct Step: Sendable {
        var edit: EditStep
        var operations: [RowOperation]
    }

    /// Opens the tree table at `path` for editing, migrating a version-1 table once (see
    /// ``SQLiteTreeStore/migrate()``); `mode` and `keys` as for ``TreeTableSource``.
    public init(
        path: String, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String? = nil, schema: Schema = Schema()
    ) throws(StoreError) {
        let store = try SQLiteTreeStore(path: path, create: false)
        try store.migrate()
        source = try TreeTableSource(store: store, mode: mode, keys: keys, name: name)
        rows = SQLiteNodeRows(database: store.database, file: store.path, hasCounts: true)
        self.schema = schema
    }

    public var snapshot: any Source { source }
    public var canUndo: Bool { !undoHistory.isEmpty }
    public var canRedo: Bool { !redoHistory.isEmpty }

    public mutating func apply(_ changes: [Change]) throws(EditError) -> [TreePath] {
        guard !changes.isEmpty else { throw EditError("no change to apply") }
        let current = source
        let schema = schema
        let rows = rows
        let (paths, operations, next) = try transaction { db in
            let q = rows.queries(db)
            let now = try current.current(in: q)
            return try TreeTableEditor.step(
                changes, shown: current, now: now, writer: SQLiteNodeRows.Writer(db: db), queries: q, schema: schema, version: now.version)
        }
        record(changes, paths, operations, next)
        return paths
    }

    /// Derives the changes inside the step's transaction, from the table as it is then (after
    /// every other writer's step): an action's increment counts every press.
    public mutating func apply(deriving derive: (any Source) throws(EditError) -> [Change]) throws(EditError) -> (changes: [Change], paths: [TreePath]) {
        let current = source
        let schema = schema
        let rows = rows
        let (changes, paths, operations, next) = try transaction { db in
            let q = rows.queries(db)
            let now = try current.current(in: q)
            return try TreeTableEditor.step(
                deriving: derive, now: now, writer: SQLiteNodeRows.Writer(db: db), queries: q, schema: schema, version: now.version)
        }
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
        try replay(step.operations.reversed().map(\.inverse))
        undoHistory.removeLast()
        redoHistory.append(step)
        return step.edit
    }

    public mutating func redo() throws(EditError) -> EditStep? {
        guard let step = redoHistory.last else { return nil }
        try replay(step.operations)
        redoHistory.removeLast()
        undoHistory.append(step)
        return step.edit
    }

    /// Picks up commits of other writers: `PRAGMA data_version` differs from the snapshot's.
    public mutating func refresh() throws(EditError) -> Bool {
        let current = source
        let rows = rows
        let next = try read { db in try current.current(in: rows.queries(db)) }
        guard next.cache !== current.cache else { return false }
        source = next
        return true
    }

    /// Runs row operations (undo or redo) checked against other writers, then takes a new snapshot.
    mutating func replay(_ operations: [RowOperation]) throws(EditError) {
        let current = source
        let rows = rows
        source = try transaction { db in
            for operation in operations { try SQLiteNodeRows.Writer(db: db).run(operation, checked: true) }
            return try current.renewed(rows.queries(db))
        }
    }

    /// Runs `body` in one `BEGIN IMMEDIATE` transaction (waiting up to 5 s for other writers);
    /// any error rolls it back and becomes an ``EditError``.
    func transaction<T>(_ body: (Database) throws -> T) throws(EditError) -> T {
        do {
            var result: T?
            try rows.database.writeWithoutTransaction { db in
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
            }
            guard let result else { throw EditError("the change was not written") }
            return result
        } catch {
            throw Self.editError(error, file: source.file)
        }
    }

    func read<T>(_ body: (Database) throws -> T) throws(EditError) -> T {
        do { return try rows.database.read(body) } catch { throw Self.editError(error, file: source.file) }
    }

    static func editError(_ error: any Error, file: String) -> EditError {
        switch error {
        case let edit as EditError: edit
        case let conflict as RowOperation.Conflict:
            EditError("\(conflict.message); nothing was changed (reload to see the data as it is now)", reason: .conflict)
        default: EditError("could not write \(file): \(StoreError(file: file, error).message)")
        }
    }

    /// Refuses `changes` when another writer moved or changed what their paths showed: every path
    /// must still lead to the same stored row, and a renamed or re-valued row must be as shown.
    package static func checkUnchanged(_ changes: [Change], shown: TreeTableSource, now: TreeTableSource) throws {
        for change in changes {
            var paths = [change.path]
            if case .move(_, let parent, _) = change { paths.append(parent) }
            for path in paths {
                let before = try shown.storedRow(at: path)
                let after = try now.storedRow(at: path)
                guard before?.node.id == after?.node.id else {
                    throw EditError(
                        "another writer changed the rows here since they were shown; nothing was changed (reload and try again)", at: path,
                        reason: .conflict)
                }
                switch change {
                case .updateTitle, .setAttribute:
                    guard before == after else {
                        throw EditError(
                            "another writer changed this row since it was shown; nothing was changed (reload and try again)", at: path,
                            reason: .conflict)
                    }
                default: break
                }
            }
        }
    }
}

extension TreeTableSource {
    /// Whether `other` is this very snapshot (the same cache), not a newer one.
    package func isSnapshot(_ other: TreeTableSource) -> Bool { cache === other.cache }

    /// This snapshot when no other writer committed since it was taken, else a new one.
    package func current(in q: any NodeRowQueries) throws -> TreeTableSource {
        try q.version() == version ? self : try renewed(q)
    }

    /// This snapshot reading through the open transaction of `q` (and only while it is open).
    package func bound(to q: any NodeRowQueries) -> TreeTableSource {
        var copy = self
        copy.transaction = TransactionHandle(queries: q)
        return copy
    }

    package var unbound: TreeTableSource {
        var copy = self
        copy.transaction = nil
        return copy
    }

    /// Runs `body` on the cache inside the open transaction, rethrowing any error.
    func inTransaction<T>(_ body: (inout TreeTableCache.State, any NodeRowQueries) throws -> T) throws -> T {
        guard let handle = transaction else { throw NeedsDatabase() }
        return try cache.withState { try body(&$0, handle.queries) }
    }

    /// The stored row shown at `path`, or `nil` when the path leaves the tree.
    func storedRow(at path: TreePath) throws -> LevelRow? { try resolve(path)?.row }

    /// The node at `path` and its stored row, or `nil` when the path leaves the tree.
    func resolve(_ path: TreePath) throws -> (id: NodeID, row: LevelRow)? {
        try inTransaction { s, db in
            var id: Int32 = 0
            for i in path.indices {
                let range = try childRange(of: id, &s, db)
                guard i >= 0, i < range.count else { return nil }
                id = range[i].rawValue
            }
            return try row(id, &s, db).map { (NodeID(id), $0) }
        }
    }
}
