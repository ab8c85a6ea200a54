import DrillDownCore

/// What `--editable` adds to a ``Browser``: the store its edits go through and the actions its buttons run.
public struct Editor: Sendable {
    /// Where the data lives, with undo and redo history: a document in memory or a database store.
    public internal(set) var store: any EditingStore
    /// The schema's actions (and any registered in code).
    public let actions: ActionSet

    /// Edits through `store`, running `actions` for buttons and `action:` rows.
    public init(store: any EditingStore, actions: ActionSet) {
        self.store = store
        self.actions = actions
    }

    /// Edits `document`, running `actions` for buttons and `action:` rows.
    public init(document: EditableDocument, actions: ActionSet) {
        self.init(store: document, actions: actions)
    }

    /// The in-memory document, when the store is one (the terminal app saves it to its file).
    public var document: EditableDocument? { store as? EditableDocument }
}
