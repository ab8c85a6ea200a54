/// Where an editable data set lives and how a change reaches it: a document in memory (saved to
/// its file by its owner), an SQLite tree table, or relational tables mapped by a schema's `levels:`.
///
/// Every front end edits through one ``DocumentModel``, and the model through one store, so the
/// rules (validation, undo, what a path means) live in the store, once per kind of storage.
///
/// A store is a value: ``snapshot`` is an immutable snapshot that stays valid after later changes,
/// so it can be handed to other threads. A database store commits each step before `apply`
/// returns; an in-memory document is persisted by the model's `save` hook.
///
/// ```swift
/// var store: any EditingStore = EditableDocument(source: source)
/// let paths = try store.apply([.updateTitle([0], title: "First")])
/// try store.undo()
/// if try store.refresh() { reread(store.snapshot) }    // another writer changed the data
/// ```
public protocol EditingStore: Sendable {
    /// The data as it is now: an immutable snapshot, safe to keep and read on any thread.
    var snapshot: any Source { get }
    /// Whether there is a step to undo.
    var canUndo: Bool { get }
    /// Whether there is a step to redo.
    var canRedo: Bool { get }
    /// What Undo and Redo would do now: whether each can act, and the next steps' summaries
    /// (``StepSummary``). The default knows only ``canUndo`` and ``canRedo``.
    var history: HistoryState { get }
    /// Applies `changes` in order as one undoable step (all or nothing) and returns the path each
    /// one affected (see ``EditableDocument/apply(_:)``). Clears the redo history.
    /// - Throws: ``EditError`` when a change is invalid or cannot be stored; nothing is changed then.
    mutating func apply(_ changes: [Change]) throws(EditError) -> [TreePath]
    /// Takes back the latest step and returns it, or `nil` when there is nothing to undo.
    mutating func undo() throws(EditError) -> EditStep?
    /// Applies the latest undone step again and returns it, or `nil` when there is nothing to redo.
    mutating func redo() throws(EditError) -> EditStep?
    /// Picks up changes other writers made since this store last read or wrote; returns whether
    /// the data changed (``snapshot`` is then a new snapshot). Stores that cannot be written by
    /// anyone else return `false`.
    mutating func refresh() throws(EditError) -> Bool
    /// Applies, as one step, the changes `derive` makes from the data as it is when the step is
    /// written, and returns them with their paths: an action's increment or toggle counts every
    /// other writer's step before it, never overwriting one. A database store shared with other
    /// writers calls `derive` inside the step's transaction, on its rows as they are then; the
    /// default calls it on ``snapshot``.
    mutating func apply(deriving derive: (any Source) throws(EditError) -> [Change]) throws(EditError) -> (changes: [Change], paths: [TreePath])
    /// The key the next step records with its outcome, set by ``DocumentModel`` around one step.
    /// A store shared by several processes (a database server) looks the key up inside the step's
    /// transaction: when it was recorded already, the step changes nothing and ``replayed`` holds
    /// the recorded outcome; else the key is stored with the step. Others ignore it (the model
    /// remembers keys itself).
    var stepKey: StepKey? { get set }
    /// After a step with a ``stepKey``: the outcome recorded earlier under it, when the step found
    /// one (and so applied nothing).
    var replayed: StepOutcome? { get }
    /// An element each time another writer may have committed (a database server's notification,
    /// or its listener's reconnection), so a follower refreshes at once instead of at its next
    /// poll; `nil` (the default) for stores that are only polled.
    var news: AsyncStream<Void>? { get }
    /// Who makes the next step and why, set by ``DocumentModel`` around one step when its
    /// ``HistoryLog`` is written by the store (``HistoryLog/writtenByStore``): a database store
    /// then writes the step's ``HistoryRecord`` in the step's own transaction. Others ignore it.
    var historyDraft: HistoryDraft? { get set }
}

/// What a store needs to write a step's ``HistoryRecord`` itself: its author and what made it.
public struct HistoryDraft: Sendable, Equatable {
    /// Who makes the step.
    public var author: HistoryAuthor
    /// What makes it (an edit, a Revert, an Undo or a Redo).
    public var kind: HistoryRecord.Kind
    /// The record a Revert, Undo or Redo takes back.
    public var target: Int64?

    /// Creates a draft.
    public init(author: HistoryAuthor, kind: HistoryRecord.Kind = .change, target: Int64? = nil) {
        self.author = author
        self.kind = kind
        self.target = target
    }

    /// The record of `changes`, with their `paths`, whose `summary` and `inverse` were computed
    /// from the data before the step.
    public func record(_ changes: [Change], paths: [TreePath], summary: String, inverse: [Change]) -> HistoryRecord {
        HistoryRecord(
            user: author.user, session: author.user == nil ? author.session : nil, instance: author.instance, kind: kind, target: target,
            summary: summary, changes: changes, paths: paths, inverse: inverse)
    }

    /// Inside a step, before its changes are written: what makes the step's record once their
    /// paths are known. The summary, and the inverse when it must read the data as it was
    /// (``ChangeInverse/readsBefore(_:)``: old titles, values, a deleted subtree), are read from
    /// `before` now, since a database store's snapshot reads the rows through the step's own
    /// connection and would see them written. A store that described the step already passes
    /// its `summary` rather than have it made twice.
    public func recorder(for changes: [Change], before: any Source, summary given: String? = nil) -> ([TreePath]) -> HistoryRecord {
        let summary = given ?? StepSummary.describe(changes, in: before)
        let early = ChangeInverse.readsBefore(changes) ? ChangeInverse.of(changes, paths: changes.map(\.path), in: before) : nil
        return { paths in record(changes, paths: paths, summary: summary, inverse: early ?? ChangeInverse.of(changes, paths: paths, in: before)) }
    }
}

extension EditingStore {
    public var stepKey: StepKey? {
        get { nil }
        set {}
    }

    public var replayed: StepOutcome? { nil }

    public var news: AsyncStream<Void>? { nil }

    public var historyDraft: HistoryDraft? {
        get { nil }
        set {}
    }

    public var history: HistoryState { HistoryState(canUndo: canUndo, canRedo: canRedo) }

    public mutating func apply(deriving derive: (any Source) throws(EditError) -> [Change]) throws(EditError) -> (changes: [Change], paths: [TreePath]) {
        let changes = try derive(snapshot)
        return (changes, try apply(changes))
    }
}

extension EditableDocument: EditingStore {
    /// The current document as a ``Source``.
    public var snapshot: any Source { presented }

    /// A document in memory changes only through this value: always `false`.
    public mutating func refresh() throws(EditError) -> Bool { false }
}
