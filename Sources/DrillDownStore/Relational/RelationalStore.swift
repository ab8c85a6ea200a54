import DrillDownCore
import Foundation
import GRDB

/// An existing database edited through its ``RelationalMapping`` (such as the music example's): the
/// ``EditingStore`` behind `drilldown serve music.sqlite --editable` and every other editor.
///
/// Each change becomes row writes on the mapped tables, and each step is one transaction
/// (SQLite: `BEGIN IMMEDIATE`; PostgreSQL: after locking the mapped tables' revision rows),
/// committed before ``apply(_:)`` returns:
///
/// - insert: `INSERT` with the parent's key in the level's `parent` column, the title in its
///   `title` column, attributes in the columns of the same name (converted to each column's
///   type), the level's `defaults:` in columns left out, and the next place in its position
///   column. A NOT NULL column without a default that nothing fills is refused, naming it.
/// - rename: `UPDATE` of the title column; set attribute: `UPDATE` of that column (an unknown
///   column is refused, naming the level's columns).
/// - delete: the row and, level by level, the rows below it.
/// - move: within a level whose `order:` is one integer column (`track`), renumbers that column
///   among the parent's rows; to another parent of the same level, also updates the parent column.
///
/// Undo and redo write the rows back as they were (a delete's undo inserts the deleted rows
/// again with their keys), after checking that no other writer changed them since. Another
/// writer's commits are noticed through the database's version (SQLite's `PRAGMA data_version`,
/// PostgreSQL's revision triggers; ``refresh()``, and in every step): a change made on an older
/// snapshot is refused as a conflict when its rows changed since, and actions
/// (``apply(deriving:)``) are derived from the rows inside the step.
///
/// ```swift
/// var store = try RelationalStore(path: "music.sqlite", mapping: mapping)
/// let paths = try store.apply([.insert(NewNode(title: "Nardis"), parent: [0, 0], index: nil)])
/// _ = try store.undo()
/// ```
///
/// The store is a value whose ``snapshot`` is immutable; its connection is shared by copies.
public struct RelationalStore: EditingStore {
    /// The data as it is now.
    public private(set) var source: RelationalSource
    let database: any RelationalWritableDatabase
    /// The database's version as last seen (SQLite's `PRAGMA data_version`): another writer's
    /// commit changes it.
    var dataVersion: Int64
    var undoStack: [RelationalStep] = []
    var redoStack: [RelationalStep] = []
    /// Who makes the next step, while ``DocumentModel`` keeps the history in the database
    /// (``RelationalHistory``): the step then writes its record in its own transaction.
    public var historyDraft: HistoryDraft?
    /// Whether this store has made sure the history table exists.
    var historyTableReady = false

    /// The most steps kept for undo.
    public static let undoLimit = 1000

    /// Opens the database at `path` for editing through `mapping` (the file's journal mode is kept).
    /// - Throws: ``StoreError`` when the file is not a writable database, ``MappingError`` when
    ///   the mapping does not fit it.
    public init(path: String, mapping: RelationalMapping, rootTitle: String? = nil) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError(file: path, message: "no such file") }
        guard SQLiteFile.isRegularOrMissing(path) else {
            throw StoreError(file: path, message: "not a regular file (a FIFO, socket, device or directory); not opened")
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.label = "DrillDown relational store"
        let database: SQLiteRelationalDatabase
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            database = SQLiteRelationalDatabase(
                reader: queue, collation: SortCollation.collation(ignoring: mapping.sortIgnoring),
                // Without it (a file it cannot read the journal mode of) steps checkpoint in their commits.
                checkpointer: try? WALCheckpointer.attached(to: queue, path: path))
        } catch {
            throw StoreError(file: path, error)
        }
        try self.init(database: database, mapping: mapping, file: path, rootTitle: rootTitle)
    }

    /// Edits any ``RelationalWritableDatabase`` (SQLite or PostgreSQL) through `mapping`; `file`
    /// names the database in messages.
    package init(database: any RelationalWritableDatabase, mapping: RelationalMapping, file: String, rootTitle: String? = nil) throws {
        self.database = database
        do { dataVersion = try database.version() } catch { throw StoreError(file: file, error) }
        source = try RelationalSource(relational: database, mapping: mapping, file: file, rootTitle: rootTitle)
    }

    /// An element whenever another writer announced a change (PostgreSQL's NOTIFY): when to
    /// ``refresh()`` without waiting for the next tick. `nil` for SQLite.
    public var news: AsyncStream<Void>? { database.news }

    /// The data as front ends read it: with its JSON fields opened when ``openJSON(_:)`` was called.
    public var snapshot: any Source { source.presented }

    /// Opens text (and `json`/`jsonb`) columns that hold a JSON object or array as subtrees of
    /// their rows, read and written with `json`: a change inside one sets the column to the new
    /// text, in the step's transaction like any other change of the row.
    public mutating func openJSON(_ json: EmbeddedJSON) { source = source.openingJSON(json) }
    public var canUndo: Bool { !undoStack.isEmpty }
    public var canRedo: Bool { !redoStack.isEmpty }
    public var history: HistoryState { HistoryState(undo: undoStack.last?.edit, redo: redoStack.last?.edit) }

    public mutating func apply(_ changes: [Change]) throws(EditError) -> [TreePath] {
        guard let view = source.presented as? EmbeddedFieldSource else { return try step(checked: true) { _ in changes }.paths }
        let lowered = try view.lower(changes)
        return lowered.paths(try step(checked: true) { _ in lowered.changes }.paths)
    }

    /// Derives the changes inside the step's transaction, from the rows as they are then (after
    /// every other writer's step): an action's increment counts every press, on every instance.
    public mutating func apply(deriving derive: (any Source) throws(EditError) -> [Change]) throws(EditError) -> (changes: [Change], paths: [TreePath]) {
        try step(checked: false, derive)
    }

    /// One step: the changes `derive` makes (from the working snapshot, inside the transaction),
    /// written and committed. `checked`: the changes were made on ``source``, so when another
    /// writer committed since, their rows must still be as shown.
    mutating func step(checked: Bool, _ derive: (any Source) throws(EditError) -> [Change]) throws(EditError) -> (changes: [Change], paths: [TreePath]) {
        let shown = source
        let draft = historyDraft, tableReady = historyTableReady
        let result: ((RelationalStep, (() throws(EditError) -> Int64)?), RelationalCache.State, Int64)
        do {
            result = try transaction { (db, state, fresh) throws(EditError) in
                var writer = RelationalWriter(db: db, source: source.with(access: .init(open: db), state: state))
                let changes = try derive(writer.source)
                // Another writer committed since the snapshot the changes were made on: their rows must still be there, as shown.
                if checked, fresh { try writer.check(changes, shown: shown) }
                let summary = StepSummary.describe(changes, in: writer.source)
                let history = try draft.flatMap { d throws(EditError) in
                    try RelationalHistory.recording(changes, d, before: writer.source, summary: summary, db: db, tableReady: tableReady, file: source.file)
                }
                var paths: [TreePath] = []
                var written: (writes: [RowWrite], layout: [LayoutChange])
                if let deleted = Self.deletion(taken: draft, in: undoStack, by: changes) {
                    // Undo or Revert of this process's own delete: the rows come back as they
                    // were, keys and all (a new insert would give them new keys).
                    written = (deleted.writes.reversed().map(\.inverse), deleted.layout.reversed().map(\.inverse))
                    for write in written.writes { try write.perform(in: db, levels: source.levels, file: source.file) }
                    if !fresh { for change in written.layout { try writer.replay(change) } }
                    paths = deleted.paths
                } else {
                    for change in changes { paths.append(try writer.apply(change)) }
                    written = (writer.writes, writer.layout)
                }
                let recorded = try history?(paths)
                return ((RelationalStep(changes: changes, paths: paths, writes: written.writes, layout: written.layout, summary: summary), recorded), writer.state)
            }
        } catch {
            // The page that reloads on the conflict shows the data as it is now.
            if error.reason == .conflict { renew() }
            throw error
        }
        let ((done, recorded), state, version) = result
        var step = done
        // The record's number, answered before the commit (the step knows it for an Undo of its delete).
        step.historyID = try recorded?()
        if draft != nil { historyTableReady = true }
        undoStack.append(step)
        if undoStack.count > Self.undoLimit { undoStack.removeFirst() }
        redoStack.removeAll()
        source = source.with(access: source.access, state: state)
        dataVersion = version
        return (step.changes, step.paths)
    }

    /// The step of this store that `draft` (an Undo or a Revert) takes back, when that step only
    /// deleted rows and `changes` put them back (the rows and those below them, as inserts): its
    /// writes can then be undone exactly.
    static func deletion(taken draft: HistoryDraft?, in steps: [RelationalStep], by changes: [Change]) -> RelationalStep? {
        guard let draft, draft.kind == .undo || draft.kind == .revert, let target = draft.target,
            let step = steps.last(where: { $0.historyID == target }),
            step.changes.allSatisfy({ if case .delete = $0 { true } else { false } }),
            !changes.isEmpty, changes.allSatisfy({ if case .insert = $0 { true } else { false } })
        else { return nil }
        return step
    }

    public mutating func undo() throws(EditError) -> EditStep? {
        guard let step = undoStack.last else { return nil }
        let (state, version) = try replay(step.writes.reversed().map(\.inverse), step.layout.reversed().map(\.inverse))
        source = source.with(access: source.access, state: state)
        dataVersion = version
        undoStack.removeLast()
        redoStack.append(step)
        return step.edit
    }

    public mutating func redo() throws(EditError) -> EditStep? {
        guard let step = redoStack.last else { return nil }
        let (state, version) = try replay(step.writes, step.layout)
        source = source.with(access: source.access, state: state)
        dataVersion = version
        redoStack.removeLast()
        undoStack.append(step)
        return step.edit
    }

    /// Picks up other writers' commits: a new snapshot read afresh when the version moved.
    public mutating func refresh() throws(EditError) -> Bool {
        guard database.refreshDue() else { return false }
        let version: Int64
        do { version = try database.version() } catch { throw database.editError(error, file: source.file) }
        guard version != dataVersion else { return false }
        dataVersion = version
        source = source.with(access: source.access, state: .init())
        return true
    }

    /// A fresh snapshot (nothing read yet) at the database's version now; kept as it is when the
    /// database cannot be asked.
    mutating func renew() {
        guard let version = try? database.version() else { return }
        source = source.with(access: source.access, state: .init())
        dataVersion = version
    }

    /// Writes `writes` (each checked against the row as it is) and replays `layout` on a copy of the cache.
    func replay(_ writes: [RowWrite], _ layout: [LayoutChange]) throws(EditError) -> (RelationalCache.State, Int64) {
        let levels = source.levels, file = source.file
        let (_, state, version) = try transaction { (db, state, fresh) throws(EditError) in
            for write in writes { try write.perform(in: db, levels: levels, file: file) }
            var writer = RelationalWriter(db: db, source: source.with(access: .init(open: db), state: state))
            if !fresh { for change in layout { try writer.replay(change) } }
            return ((), writer.state)
        }
        return (state, version)
    }

    /// Runs `body` in one write transaction with a copy of the current cache (a fresh one, and
    /// `fresh` true, when another writer committed since), committing when it returns; also
    /// returns the database's version after the commit.
    func transaction<T>(
        _ body: (any RelationalConnection, RelationalCache.State, _ fresh: Bool) throws(EditError) -> (T, RelationalCache.State)
    ) throws(EditError) -> (T, RelationalCache.State, Int64) {
        let current = source.cache.copy
        let known = dataVersion
        do {
            let (result, version) = try database.write { db, seen in
                try body(db, seen == known ? current : .init(), seen != known)
            }
            return (result.0, result.1, version)
        } catch let error as EditError {
            throw error
        } catch {
            throw database.editError(error, file: source.file)
        }
    }
}
