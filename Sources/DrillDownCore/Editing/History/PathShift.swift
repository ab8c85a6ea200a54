/// How one applied change moves the rows around it: where a path of the data before the change
/// is after it (``forward(_:through:produced:slot:)``) and back (``backward(_:through:produced:)``).
/// A history uses it to find, in the data as it is now, the rows an old step addressed.
///
/// `produced` is the path the change affected (``EditableDocument/apply(_:)``): the new row of an
/// insert, the new place of a move.
///
/// ```swift
/// PathShift.forward([3], through: .insert(NewNode(title: "x"), parent: .root, index: 0), produced: [0])   // [4]
/// PathShift.forward([2, 1], through: .delete([2]), produced: [2])                                        // nil: removed
/// ```
enum PathShift {
    /// `path` (of the data before `change`) in the data after it; `nil` when the change removed it.
    /// A `slot` is a place between rows (an insert's parent and index): deleting the row there keeps it.
    static func forward(_ path: TreePath, through change: Change, produced: TreePath, slot: Bool = false) -> TreePath? {
        switch change {
        case .updateTitle, .setAttribute, .setValue:
            return path
        case .insert:
            return inserted(path, at: produced)
        case .delete(let gone):
            return removed(path, at: gone, slot: slot)
        case .move(let from, _, _):
            if path.hasPrefix(from), !(slot && path.depth == from.depth) { return TreePath(produced.indices + path.indices.dropFirst(from.depth)) }
            guard let left = removed(path, at: from, slot: true) else { return nil }
            return inserted(left, at: produced)
        }
    }

    /// `path` (of the data after `change`) in the data before it; `nil` when the change created it.
    static func backward(_ path: TreePath, through change: Change, produced: TreePath) -> TreePath? {
        switch change {
        case .updateTitle, .setAttribute, .setValue:
            return path
        case .insert:
            if path.hasPrefix(produced) { return nil }
            return shifted(path, after: produced, by: -1, including: false)
        case .delete(let gone):
            return shifted(path, after: gone, by: 1, including: true)
        case .move(let from, _, _):
            if path.hasPrefix(produced) { return TreePath(from.indices + path.indices.dropFirst(produced.depth)) }
            let before = shifted(path, after: produced, by: -1, including: false)
            return shifted(before, after: from, by: 1, including: true)
        }
    }

    /// `path` after a row was inserted at `at`: later siblings of `at` (and what is below them) move down one.
    static func inserted(_ path: TreePath, at: TreePath) -> TreePath {
        shifted(path, after: at, by: 1, including: true)
    }

    /// `path` after the row at `at` was removed: `nil` inside it (unless `slot`), later siblings move up one.
    static func removed(_ path: TreePath, at: TreePath, slot: Bool) -> TreePath? {
        if path.hasPrefix(at), !(slot && path.depth == at.depth) { return nil }
        return shifted(path, after: at, by: -1, including: false)
    }

    /// `path` with its index at `at`'s level moved by `delta` when it is a sibling of `at` (or
    /// below one) at or after it (`including`) or after it.
    static func shifted(_ path: TreePath, after at: TreePath, by delta: Int, including: Bool) -> TreePath {
        guard !at.isRoot, path.depth >= at.depth else { return path }
        let level = at.depth - 1
        guard path.indices[..<level].elementsEqual(at.indices[..<level]) else { return path }
        let i = path.indices[level], mark = at.indices[level]
        guard including ? i >= mark : i > mark else { return path }
        var moved = path
        moved.indices[level] = i + delta
        return moved
    }
}
