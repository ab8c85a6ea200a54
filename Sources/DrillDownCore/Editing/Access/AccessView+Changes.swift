/// Whether one user may make a list of ``Change``s: a write needs the right at every row it
/// changes, not only at the row it names. A delete or a move takes the row's whole subtree along,
/// so the user needs the editor role on all of it; a move or an insert also changes the new
/// parent, which needs it too.
extension AccessView {
    /// Throws unless the user may make every one of `changes`, applied one after another (as one
    /// step of ``DocumentModel`` applies them: each addressed in the data its predecessors left).
    /// - Throws: ``AccessError`` naming the first row the user may not change.
    public func requireChanges(_ changes: [Change], in source: any Source) throws(AccessError) {
        var view = self
        // Titles come from `source`, which names the rows only until a change moves them.
        var shifted = false
        func title(_ path: TreePath) -> String? {
            shifted ? nil : source.node(at: path).map { source.titlePath(of: $0) }
        }
        for change in changes {
            switch change {
            case .delete(let path):
                try view.requireSubtree(at: path, titled: title(path))
            case .move(let path, let parent, _):
                try view.requireSubtree(at: path, titled: title(path))
                try view.requireChange(at: parent, titled: title(parent))
            case .insert(_, let parent, _):
                try view.requireChange(at: parent, titled: title(parent))
            case .updateTitle(let path, _), .setAttribute(let path, _, _), .setValue(let path, _):
                try view.requireChange(at: path, titled: title(path))
            }
            view = view.after(change)
            switch change {
            case .insert, .delete, .move: shifted = true
            case .updateTitle, .setAttribute, .setValue: break
            }
        }
    }

    /// Throws unless the user may change the row at `path` and every row below it.
    /// - Throws: ``AccessError`` naming the row; a row below it that the user reads but may not
    ///   change is named too, one they may not read is not.
    public func requireSubtree(at path: TreePath, titled title: String? = nil) throws(AccessError) {
        try requireChange(at: path, titled: title)
        let inside = grants.filter { !$0.role.mayChange && $0.path.depth > path.depth && path.isPrefix(of: $0.path) }
        guard let first = inside.first else { return }
        let outer = place(path, titled: title)
        if inside.allSatisfy({ $0.role.mayRead }) {
            let read = first
            throw AccessError(
                message: "\(user) is a \(read.role.rawValue) at \(read.path) inside \(outer): moving or deleting it needs the editor role on all of it",
                at: read.path)
        }
        throw AccessError(
            message: "\(outer) holds rows \(user) may not change: moving or deleting it needs the editor role on all of it", at: path)
    }

    /// This view with its grants' places followed through `change` (a deleted row's grants go
    /// with it). A moved subtree appended to its new parent loses the grants inside it: a move
    /// that passed ``requireSubtree(at:titled:)`` leaves only rows the user may change there.
    func after(_ change: Change) -> AccessView {
        var paths = PathTracker(grants.map(\.path))
        var keep = grants.map { _ in true }
        func drop(_ root: TreePath) {
            for k in grants.indices where root.isPrefix(of: paths.paths[k]) { keep[k] = false }
        }
        switch change {
        case .insert(_, let parent, let index?):
            paths.insert(at: parent, index: index)
        case .delete(let path):
            drop(path)
            paths.remove(path)
        case .move(let path, let parent, let index?):
            var destination = PathTracker([parent])
            destination.remove(path)
            paths.move(path, to: destination.paths[0].appending(index))
        case .move(let path, _, nil):
            drop(path)
            paths.remove(path)
        case .insert(_, _, nil), .updateTitle, .setAttribute, .setValue:
            return self
        }
        let moved = grants.indices.filter { keep[$0] }.map { (paths.paths[$0], grants[$0].role) }
        return AccessView(user: user, base: base, grants: moved)
    }
}
