import DrillDownCore
import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// An ``EditingStore`` over a tree table in PostgreSQL that several `drilldown serve` instances
/// share: each change is one transaction that writes only the rows it touches, ends with
/// `NOTIFY drilldown_<table>, '<revision>'`, and is seen by every instance.
///
/// Changes are validated and turned into splices by ``EditableDocument`` on this instance's
/// snapshot (the same rules as every other store); ``PostgresSpliceWriter`` then writes each
/// splice: the rows it removes are locked (`SELECT … FOR UPDATE`) and must still exist, its
/// container row too, new rows are inserted, and a subtree put back elsewhere (a move) keeps its
/// rows. A change to a row another instance deleted or replaced meanwhile fails with a
/// ``EditError/Reason/conflict`` error and changes nothing; so does an unreachable server, as
/// ``EditError/Reason/unavailable``.
///
/// The snapshot is the whole tree in memory. After a change it is the tree this instance
/// computed, when nobody else wrote in between (the revision went up by exactly one); otherwise,
/// and when ``refresh()`` learns from the ``PostgresListener`` (or a poll every 2 s) that another
/// instance committed, the table is read again.
///
/// Undo and redo write a step's splices backwards (``TreeEdit/inverse``) or again, in a
/// transaction like any change, with the same row checks: rows the step deleted come back as new
/// rows, and a row another instance changed or deleted since makes the undo a conflict that
/// changes nothing. The history lasts until the table is read again (another instance wrote):
/// the steps name nodes of this snapshot.
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
    var document: EditableDocument
    var rows: RowMap
    /// The revision the snapshot shows.
    public private(set) var revision: Int64
    let mode: ReadingMode?
    let keys: OutlineKeys
    let name: String
    var listener: PostgresListener?
    /// What refresh last saw; a reference, because a model refreshes a copy and keeps it only when
    /// the data changed.
    let polling = Polling()
    /// How often ``refresh()`` asks the database even when no notification came.
    public var pollInterval: Duration = .seconds(2)

    /// Reads the table whole; with `listen`, follows other instances' changes through NOTIFY.
    public init(
        _ location: PostgresLocation, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String? = nil,
        schema: Schema = Schema(), listen: Bool = true
    ) throws(PostgresStoreError) {
        table = try PostgresTreeTable(location)
        try table.upgrade()
        if listen { listener = try PostgresListener(location) }
        let snapshot = try table.read()
        self.mode = mode
        self.keys = keys
        self.name = name ?? location.table
        self.schema = schema
        document = Self.document(snapshot.tree, mode: mode, keys: keys, name: self.name, schema: schema)
        rows = snapshot.rows
        revision = snapshot.revision
    }

    static func document(_ tree: TreeStore, mode: ReadingMode?, keys: OutlineKeys, name: String, schema: Schema) -> EditableDocument {
        var document = EditableDocument(source: DocumentSource(tree: tree, mode: mode, keys: keys, name: name), schema: schema)
        document.historyLimit = undoLimit
        return document
    }

    /// The most steps kept for undo.
    public static let undoLimit = 100

    public var snapshot: any Source { document.source }
    public var canUndo: Bool { !document.undoHistory.isEmpty }
    public var canRedo: Bool { !document.redoHistory.isEmpty }

    public mutating func apply(_ changes: [Change]) throws(EditError) -> [TreePath] {
        var work = document
        work.schema = schema
        let paths = try work.apply(changes)
        guard let step = work.undoHistory.last else { throw EditError("the change was not recorded") }
        try commit(step.edits, giving: work)
        return paths
    }

    public mutating func undo() throws(EditError) -> EditStep? {
        var work = document
        guard let step = work.undo() else { return nil }
        try commit(step.edits.reversed().map(\.inverse), giving: work)
        return step
    }

    public mutating func redo() throws(EditError) -> EditStep? {
        var work = document
        guard let step = work.redo() else { return nil }
        try commit(step.edits, giving: work)
        return step
    }

    /// Writes `edits` in one transaction; then `work` (the document they lead to) is the
    /// snapshot, or the table is read again when another instance committed in between.
    mutating func commit(_ edits: [TreeEdit], giving work: EditableDocument) throws(EditError) {
        var work = work
        var map = rows
        let known = revision
        let committed: Int64
        do {
            committed = try table.session.transaction { connection in
                var writer = PostgresSpliceWriter(connection: connection, table: table.location.table, logger: table.session.logger, rows: map)
                let next = try writer.begin()
                for edit in edits { try writer.write(edit) }
                try writer.finish(revision: next, channel: table.location.channel)
                map = writer.rows
                return next
            }
        } catch {
            // A failed change leaves the table as it was. A conflict means this snapshot is stale
            // (another writer changed or deleted a row it holds): read the table again, so the
            // page that refreshes on the 409 shows the data as it is now.
            if let conflict = error.underlyingConflict {
                try? reload()
                throw conflict
            }
            throw error.editError
        }
        if committed == known + 1 {
            work.schema = schema
            document = work
            rows = map
            revision = committed
        } else {
            try reload()
        }
    }

    /// Reads the table again when another instance committed: a notification announced a newer
    /// revision, the listener reconnected (notifications may have been missed), or, every
    /// ``pollInterval``, the revision in the table differs.
    public mutating func refresh() throws(EditError) -> Bool {
        let now = ContinuousClock.now
        let state = listener?.state
        let due = polling.box.withLockedValue { seen -> Bool in
            // News: a newer revision was announced, or the listener reconnected (it may have missed some).
            let news = state.map { $0.generation != seen.generation || $0.announced > revision } ?? false
            guard news || now - seen.time >= pollInterval else { return false }
            seen = (now, state?.generation ?? 0)
            return true
        }
        guard due else { return false }
        let current: Int64
        do { current = try table.revision() } catch { throw error.editError }
        guard current != revision else { return false }
        try reload()
        return true
    }

    mutating func reload() throws(EditError) {
        let fresh: PostgresTreeTable.Snapshot
        do { fresh = try table.read() } catch { throw error.editError }
        document = Self.document(fresh.tree, mode: mode, keys: keys, name: name, schema: schema)
        rows = fresh.rows
        revision = fresh.revision
    }

    /// Whether the database answers (for `/readyz`): `nil`, or why not.
    public func readiness() -> String? { table.ping() }
}

/// When ``PostgresTreeStore/refresh()`` last asked the database, and which listener connection it had heard from.
final class Polling: Sendable {
    let box = NIOLockedValueBox<(time: ContinuousClock.Instant, generation: Int)>((ContinuousClock.now, 0))
}

extension PostgresStoreError {
    /// The conflict a splice writer reported, if that is what failed.
    var underlyingConflict: EditError? { conflict }
}
