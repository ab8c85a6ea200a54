extension ChangeEvent {
    /// Where the row at `path` in the data before this event is after it, as far as the event
    /// says how rows moved (see `PathShift`): forward through the changes applied (an edit, a
    /// redo, an Undo from the audit history), back through a step taken back (a store's own
    /// Undo: ``takesBack``), forward through the ``recorded`` steps of an external change.
    /// `nil` when the event removed the row (or, undoing, the row was the step's new one).
    ///
    /// An external change may hold more than its recorded steps (a writer without a history),
    /// so a path followed through one may have to be checked against ``source``.
    ///
    /// ```swift
    /// // Queen (0.0) deleted; Blur was 0.2:
    /// event.following([0, 2])   // [0, 1]; after that step's Undo, [0, 1] → [0, 2] again
    /// ```
    public func following(_ path: TreePath) -> TreePath? {
        switch origin {
        case .undo where takesBack:
            var at: TreePath? = path
            for k in changes.indices.reversed() {
                at = at.flatMap { PathShift.backward($0, through: changes[k], produced: k < paths.count ? paths[k] : changes[k].path) }
            }
            return at
        case .external:
            return recorded.reduce(path) { at, step in at.flatMap { Self.forward($0, through: step.changes, produced: step.paths) } }
        case .apply, .undo, .redo:
            return Self.forward(path, through: changes, produced: paths)
        }
    }

    /// `path` after `changes` were applied in order, each affecting `produced[k]`.
    static func forward(_ path: TreePath, through changes: [Change], produced: [TreePath]) -> TreePath? {
        var at: TreePath? = path
        for (k, change) in changes.enumerated() {
            at = at.flatMap { PathShift.forward($0, through: change, produced: k < produced.count ? produced[k] : change.path) }
        }
        return at
    }
}
