/// Change events as one reader may see them: what a step did to rows hidden from the reader is
/// not told, not even that it happened.
extension AccessView {
    /// `event` as this user sees it, `nil` when every row it changed is hidden from the user: the
    /// paths the user may not reach are left out; when some were, the summary (which may name a
    /// hidden title) says only that rows changed. The history's labels, which may name a hidden
    /// row too, are left out for a user from whom rows are hidden (such a user may not undo).
    /// An event that names no path (another writer changed the data) is passed on. Make the view
    /// over the data after the step (``ChangeEvent/source``), in which the paths are.
    public func sees(_ event: ChangeEvent) -> ChangeEvent? {
        guard hidesRows else { return event }
        var seen = event
        seen.paths = event.paths.filter(mayReach)
        if seen.paths.isEmpty, !event.paths.isEmpty { return nil }
        if seen.paths.count < event.paths.count { seen.summary = seen.paths.count == 1 ? "1 row changed" : "\(seen.paths.count) rows changed" }
        seen.history = sees(event.history)
        return seen
    }

    /// `history` as this user sees it: without the labels of the steps when rows are hidden
    /// from the user.
    public func sees(_ history: HistoryState) -> HistoryState {
        guard hidesRows else { return history }
        return HistoryState(canUndo: history.canUndo, canRedo: history.canRedo)
    }
}
