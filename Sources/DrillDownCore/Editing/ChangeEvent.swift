/// What a ``DocumentModel`` publishes after each applied step: what happened, where, and the
/// document as it is now.
public struct ChangeEvent: Sendable {
    /// Why the document changed.
    public enum Origin: String, Sendable, Equatable {
        /// New changes were applied (an edit, an action, a control).
        case apply
        /// A step was undone: ``ChangeEvent/changes`` are the changes taken back (see
        /// ``ChangeEvent/takesBack``) or, with an audit history, the inverse the Undo applied.
        case undo
        /// An undone step was applied again.
        case redo
        /// Another writer (a process, the `sqlite3` shell, a text editor) changed the data;
        /// ``ChangeEvent/changes`` is empty and the snapshot is the data as it is now. What the
        /// audit history recorded of it is in ``ChangeEvent/recorded``.
        case external
    }

    /// Increases by one with every event of a model, starting at 1.
    public var revision: Int
    /// Why the document changed.
    public var origin: Origin
    /// The changes of the step, in the order they were first applied.
    public var changes: [Change]
    /// The path each change affected when it was first applied (see ``EditableDocument/apply(_:)``).
    public var paths: [TreePath]
    /// What the step did, in words ("Rename of Ringtone to Chime": see ``StepSummary``); empty
    /// for an external change.
    public var summary: String
    /// What Undo and Redo can do after the step, so every view can enable its buttons.
    public var history: HistoryState
    /// The document after the step: a snapshot to read without going back to the model.
    public var source: any Source
    /// For an ``Origin/undo``: whether ``changes`` and ``paths`` are the step taken back, as it
    /// was first applied (a store's own Undo), rather than the changes the Undo applied (an Undo
    /// from the audit history applies the step's inverse as a new step).
    public var takesBack = false
    /// For an ``Origin/external`` change: the steps other writers recorded in the audit history
    /// since the model last looked, oldest first; empty without a history, or when the writer
    /// records none (the `sqlite3` shell, a text editor). See ``following(_:)``.
    public var recorded: [EditStep] = []
}
