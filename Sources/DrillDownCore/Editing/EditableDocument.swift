/// A document that can be edited: the current ``TreeStore`` read through a ``DocumentSource``,
/// plus undo and redo history.
///
/// Apply ``Change``s addressed by TreePaths; each one is validated first and either applied
/// whole or not at all (an ``EditError`` says why). Every change produces a new, immutable
/// tree, so a ``DocumentSource`` taken before a change stays valid and unchanged: snapshots are
/// free to hand to other threads.
///
/// ```swift
/// var doc = EditableDocument(source: DocumentSource(tree: tree))
/// let path = try doc.apply(.insert(NewNode(title: "Item 5"), parent: .root, index: nil))  // [4]
/// try doc.apply(.setAttribute(path, key: "plays", value: Scalar(.integer, "0")))
/// doc.undo()                                        // the attribute is gone again
/// doc.redo()
/// try DocumentWriter.write(doc.tree, to: file, format: format)   // with DrillDownFormats
/// ```
///
/// For a document shared between front ends, wrap it in a ``DocumentModel``.
///
/// - Complexity: a change writes records into the tree's persistent overlay (see ``TreeStore``):
///   O(depth × log runs + runs of the level it changes + the nodes it adds or removes), never
///   O(n); the new tree shares everything else with the old one. Undo and redo put back the
///   tree a step kept: O(1). Reading stays O(1) per node.
public struct EditableDocument: Sendable {
    /// The current document, read with the document's mode. A snapshot: later changes make new ones.
    public private(set) var source: DocumentSource
    /// Changes that ``undo()`` can take back, oldest first.
    /// - Complexity: O(steps kept)
    public var undoHistory: [EditStep] { undoSteps.elements }
    /// Changes that ``redo()`` can apply again, the next one last.
    /// - Complexity: O(steps kept)
    public var redoHistory: [EditStep] { redoSteps }
    /// The number of steps ``undo()`` can take back.
    public var undoCount: Int { undoSteps.count }
    var undoSteps = StepHistory<EditStep>(limit: 500)
    var redoSteps: [EditStep] = []
    /// How many steps ``undo()`` can go back; older steps are forgotten.
    public var historyLimit: Int {
        get { undoSteps.limit }
        set { undoSteps.limit = newValue }
    }
    /// The presentation schema whose row controls constrain attribute types: a switch's attribute
    /// stays a boolean, a slider's or stepper's a number within its bounds. Empty by default.
    public var schema = Schema()

    /// Starts editing the document behind `source`, keeping its reading mode and name; `schema`
    /// constrains the attributes its row controls edit.
    public init(source: DocumentSource, schema: Schema = Schema()) {
        self.source = source
        self.schema = schema
    }

    /// Starts editing `tree`, read with `mode` (inferred when `nil`, as ``DocumentSource`` does).
    public init(tree: TreeStore, mode: ReadingMode? = nil, name: String = "", schema: Schema = Schema()) {
        self.init(source: DocumentSource(tree: tree, mode: mode, name: name), schema: schema)
    }

    /// The current tree.
    public var tree: TreeStore { source.tree }
    /// How the tree is read: the outline convention or generic.
    public var mode: ReadingMode { source.mode }
    /// Whether there is a step to undo.
    public var canUndo: Bool { !undoSteps.isEmpty }
    /// Whether there is a step to redo.
    public var canRedo: Bool { !redoSteps.isEmpty }
    /// What Undo and Redo would do now.
    public var history: HistoryState { HistoryState(undo: undoSteps.last, redo: redoSteps.last) }

    /// Applies one change and returns the path of the node it affected: the new node for an
    /// insert, its new place for a move, the path it had for a delete, else the node's path.
    /// Clears the redo history.
    /// - Throws: ``EditError`` when the change is invalid; the document is then unchanged.
    @discardableResult
    public mutating func apply(_ change: Change) throws(EditError) -> TreePath {
        try apply([change])[0]
    }

    /// Applies changes in order as one undoable step (all or nothing), returning each one's path.
    ///
    /// Each change's paths are read in the tree as the previous changes left it.
    @discardableResult
    public mutating func apply(_ changes: [Change]) throws(EditError) -> [TreePath] {
        guard !changes.isEmpty else { throw EditError("no change to apply") }
        // The histories leave `self` while the changes are made, so appending to them below does
        // not copy every kept step (a copy of 500 steps was most of a change's cost). Only the
        // source changes (each splice replaces it): a failed change puts it back, and the rest of
        // the document (its schema, its histories) is never copied.
        var history = undoSteps
        let redo = redoSteps
        undoSteps.removeAll()
        redoSteps = []
        let original = source
        var step = EditStep(changes: changes, paths: [], before: tree, after: nil)
        step.summary = StepSummary.describe(changes, in: presented)
        // A change is at most three splices (a move into a row without children): no regrowth.
        step.edits.reserveCapacity(3 * changes.count)
        step.paths.reserveCapacity(changes.count)
        do {
            for change in changes {
                step.paths.append(try performAnywhere(change, recording: &step))
            }
        } catch {
            source = original
            undoSteps = history
            redoSteps = redo
            throw error
        }
        step.after = tree
        let paths = step.paths
        // What the change lets go of is freed on a background thread (see ``Reclaimer``).
        if let dropped = history.append(step) { Reclaimer.shared.discard(consume dropped) }
        Reclaimer.shared.discard(consume redo)
        undoSteps = history
        return paths
    }

    /// Takes back the latest step and returns it, or `nil` when there is nothing to undo.
    /// - Complexity: O(1): the step kept the tree it started from.
    @discardableResult
    public mutating func undo() -> EditStep? {
        guard let step = undoSteps.popLast() else { return nil }
        if let before = step.before { replace(with: before) }
        redoSteps.append(step)
        return step
    }

    /// Applies the latest undone step again and returns it, or `nil` when there is nothing to redo.
    /// - Complexity: O(1): the step kept the tree it made.
    @discardableResult
    public mutating func redo() -> EditStep? {
        guard let step = redoSteps.popLast() else { return nil }
        if let after = step.after { replace(with: after) }
        if let dropped = undoSteps.append(step) { Reclaimer.shared.discard(consume dropped) }
        return step
    }

    /// Applies a splice to the current tree (the step keeps the trees before and after it).
    mutating func splice(_ splice: Splice, recording step: inout EditStep) {
        let before = tree
        let after = tree.applying(splice)
        step.edits.append(TreeEdit(container: splice.container, range: splice.range, inserted: splice.fragments.count, before: before, after: after))
        replace(with: after)
    }

    mutating func replace(with newTree: TreeStore) {
        source = source.reading(newTree)
    }
}

/// One undoable step: the changes applied together and the paths they produced.
public struct EditStep: Sendable {
    /// The changes, in the order they were applied.
    public var changes: [Change]
    /// The path each change affected (see ``EditableDocument/apply(_:)``).
    public var paths: [TreePath]
    /// What the step did, in words ("Rename of Ringtone to Chime": see ``StepSummary``); empty
    /// for a step replayed under its key.
    public var summary = ""
    /// The tree before the step (what undo puts back); trees share structure, so keeping it is O(1).
    var before: TreeStore?
    /// The tree after the step (what redo puts back).
    var after: TreeStore?
    /// The splices the step made, in order, as a database store writes them row by row.
    public internal(set) var edits: [TreeEdit] = []

    /// A step of a store that keeps its own undo data (a database store): its changes, paths and
    /// ``summary``.
    public init(changes: [Change], paths: [TreePath], summary: String = "") {
        self.init(changes: changes, paths: paths, before: nil, after: nil)
        self.summary = summary
    }

    /// The level whose page shows the step's effect: after an undo (`undone`), where the first
    /// change was made (the parent of an added row, the old parent of a moved one); after the step
    /// or its redo, where its first changed row is now. `nil` for a step without changes.
    public func level(undone: Bool) -> TreePath? {
        guard let change = changes.first else { return nil }
        if undone {
            if case .insert(_, let parent, _) = change { return parent }
            return change.path.isRoot ? .root : change.path.parent
        }
        guard let path = paths.first else { return nil }
        return path.isRoot ? .root : path.parent
    }

    /// The row the step's first change addressed, where it is after an undo (`undone`) or the step.
    public func row(undone: Bool) -> TreePath? {
        guard let change = changes.first else { return nil }
        if undone {
            if case .insert = change { return nil }
            return change.path
        }
        return paths.first
    }

    init(changes: [Change], paths: [TreePath], before: TreeStore?, after: TreeStore?) {
        self.changes = changes
        self.paths = paths
        self.before = before
        self.after = after
    }
}
