import DrillDownCore

/// Which writes the request's user may make (on a server with accounts): the core's
/// ``AccessView`` asked for every row a write changes. A refusal is 403 naming the user, their
/// role there and the role needed.
extension Site {
    /// Throws 403 unless the request's user may make write `op` at `path` with `form`.
    /// - Undo and redo take back anyone's change anywhere: they need the editor role on the whole data set.
    /// - A move needs the right at the row and at its new parent; a batch at each of its rows
    ///   (and each `to`).
    func authorize(_ op: Substring, at path: TreePath, _ form: EditRequest, in source: any Source) throws {
        guard let access = RequestState.current?.access else { return }
        func require(_ target: TreePath) throws(AccessError) {
            let title = source.node(at: target).map { source.titlePath(of: $0) }
            try access.requireChange(at: target, titled: title)
        }
        do {
            switch op {
            case "undo", "redo":
                try access.requireChangeEverywhere(String(op))
            case "batch":
                for item in try form.batchItems() {
                    for target in item.paths { try require(target) }
                    if let to = item.to { try require(to) }
                }
            case "move":
                try require(path)
                if let to = form["to"] {
                    try require(source.path(of: try NodeLookup.node(decoded: to, in: source).id))
                }
            default:
                try require(path)
            }
        } catch let error as AccessError {
            throw WebError.forbidden(error.message)
        }
    }
}
