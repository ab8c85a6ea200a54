import DrillDownCore

/// Which writes the request's user may make (on a server with accounts): the core's
/// ``AccessView`` asked for every row a write changes. A refusal is 403 naming the user, their
/// role there and the role needed.
extension Site {
    /// Throws 403 unless the request's user may make write `op` at `path` with `form`.
    /// - Undo and redo take back anyone's change anywhere: they need the editor role on the whole data set.
    /// - A delete or move needs the right on the row's whole subtree and (a move) at its new
    ///   parent; an add at the parent; a batch all of that for each of its changes (see
    ///   ``AccessView/requireChanges(_:in:)``).
    func authorize(_ op: Substring, at path: TreePath, _ form: EditRequest, in source: any Source) throws {
        guard let access = RequestState.current?.access else { return }
        do throws(AccessError) {
            switch op {
            case "undo", "redo":
                try access.requireChangeEverywhere(String(op))
            case "batch", "delete", "move":
                // A malformed write changes nothing: applying it answers its 400.
                guard let changes = try? Self.plannedChanges(op, at: path, form, in: source) else { return }
                try access.requireChanges(changes, in: source)
            default:
                try access.requireChange(at: path, titled: source.node(at: path).map { source.titlePath(of: $0) })
            }
        } catch {
            throw WebError.forbidden(error.message)
        }
    }

    /// The core changes a delete, move or batch makes, for the access check: a move's index does
    /// not matter there, only the row and its new parent.
    private static func plannedChanges(_ op: Substring, at path: TreePath, _ form: EditRequest, in source: any Source) throws -> [Change] {
        switch op {
        case "delete": return [.delete(path)]
        case "move":
            let parent = try form["to"].map { source.path(of: try NodeLookup.node(decoded: $0, in: source).id) } ?? path.parent
            return [.move(path, parent: parent, index: nil)]
        default: return try form.batchItems().flatMap { try $0.changes() }
        }
    }
}
