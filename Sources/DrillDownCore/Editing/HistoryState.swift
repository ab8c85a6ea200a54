/// What Undo and Redo can do now: whether each can act and what it would take back or apply
/// again (a ``StepSummary``), for a front end to enable its buttons and label them
/// ("Undo Rename of Ringtone").
public struct HistoryState: Sendable, Equatable, Codable {
    /// Whether there is a step to undo.
    public var canUndo: Bool
    /// Whether there is a step to redo.
    public var canRedo: Bool
    /// What the next undo takes back, when there is one.
    public var undo: String?
    /// What the next redo applies again, when there is one.
    public var redo: String?

    /// A state: `undo` and `redo` describe the next steps, when the store knows them.
    public init(canUndo: Bool = false, canRedo: Bool = false, undo: String? = nil, redo: String? = nil) {
        self.canUndo = canUndo
        self.canRedo = canRedo
        self.undo = undo
        self.redo = redo
    }

    /// The state of histories whose next steps are `undo` and `redo`.
    public init(undo: EditStep?, redo: EditStep?) {
        self.init(canUndo: undo != nil, canRedo: redo != nil, undo: undo?.summary, redo: redo?.summary)
    }

    /// Nothing to undo or redo.
    public static let empty = HistoryState()
}
