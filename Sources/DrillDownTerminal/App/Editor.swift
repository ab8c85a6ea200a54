import DrillDownCore

/// What `--editable` adds to a ``Browser``: the document its edits go through and the actions its buttons run.
public struct Editor: Sendable {
    /// The document, with undo and redo history.
    public internal(set) var document: EditableDocument
    /// The schema's actions (and any registered in code).
    public let actions: ActionSet

    /// Edits `document`, running `actions` for buttons and `action:` rows.
    public init(document: EditableDocument, actions: ActionSet) {
        self.document = document
        self.actions = actions
    }
}
