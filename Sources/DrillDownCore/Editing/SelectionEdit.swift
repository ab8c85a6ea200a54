/// An edit of several nodes at once (an outline's multi-selection), planned as the list of
/// ``Change``s that ``DocumentModel``'s `apply(_:key:)` applies as one undoable step.
///
/// The selection's paths all name nodes of the data as the edit sees it. The changes of one step
/// are applied one after another, each addressed in the data its predecessors left, so the plan
/// translates every path through the changes before it: deleting `0.1` and `0.3` deletes `0.3`
/// first; moving `0.1` and `2.4` under `1` moves `0.1`, then the node that is now `2.4`'s, and so
/// on. A selected node inside another selected node goes along with it and is not planned apart.
///
/// ```swift
/// let plan = try SelectionEdit.move([[0, 1], [2, 4]], parent: [1], index: 0).changes()
/// try await model.apply(plan)   // one step: Undo puts both back
/// ```
public enum SelectionEdit: Sendable, Equatable {
    /// Deletes every selected node.
    case delete([TreePath])
    /// Moves the selected nodes, in document order, under `parent` at `index` among its children
    /// counted after the selected nodes left (`nil` appends), as the single move counts.
    case move([TreePath], parent: TreePath, index: Int?)
    /// Moves each selected node under the nearest sibling above it that is not selected, as its last
    /// child (Tab in an outline); a node with no such sibling stays.
    case indent([TreePath])
    /// Moves each selected node out of its parent, to just after it (Shift-Tab); selected
    /// siblings keep their order, and top-level nodes stay.
    case outdent([TreePath])

    /// The selection, as given.
    public var paths: [TreePath] {
        switch self {
        case .delete(let p), .move(let p, _, _), .indent(let p), .outdent(let p): p
        }
    }

    /// The changes that make this edit, in the order they must be applied.
    /// - Throws: ``EditError`` for an empty selection or one naming the root, a move into a
    ///   selected node or under one, and an indent or outdent that moves nothing.
    public func changes() throws(EditError) -> [Change] {
        let selected = try Self.normalized(paths)
        switch self {
        case .delete:
            // Last first: removing a node shifts only the nodes after it in document order.
            return selected.reversed().map { .delete($0) }
        case .move(_, let parent, let index):
            return try Self.move(selected, parent: parent, index: index)
        case .indent:
            return try Self.indent(selected)
        case .outdent:
            return try Self.outdent(selected)
        }
    }

    /// Where the nodes of a step's changes are once the whole step is applied: `results` are the
    /// paths the store answered for `changes`, each right after its change; the later changes
    /// move, insert and delete around them. A deleted node keeps the path it had.
    public static func finalPaths(of changes: [Change], results: [TreePath]) -> [TreePath] {
        // Change j moves the nodes of the changes before it; the later ones are already named after it.
        var tracker = PathTracker(results)
        for (j, change) in changes.enumerated() where j < results.count {
            switch change {
            case .insert:
                tracker.insert(at: results[j].parent, index: results[j].indices.last ?? 0, before: j)
            case .delete(let path):
                tracker.remove(path, before: j)
            case .move(let path, _, _):
                tracker.move(path, to: results[j], before: j)
            case .updateTitle, .setAttribute, .setValue:
                break
            }
        }
        return tracker.paths
    }

    /// The selection in document order, without duplicates and without nodes inside other
    /// selected nodes.
    static func normalized(_ paths: [TreePath]) throws(EditError) -> [TreePath] {
        guard !paths.isEmpty else { throw EditError("select at least one row") }
        if paths.contains(where: \.isRoot) { throw EditError("the root cannot be selected", at: .root) }
        var result: [TreePath] = []
        for path in Set(paths).sorted() where !(result.last.map { path.hasPrefix($0) } ?? false) {
            result.append(path)
        }
        return result
    }

    static func move(_ selected: [TreePath], parent: TreePath, index: Int?) throws(EditError) -> [Change] {
        if let inside = selected.first(where: { parent.hasPrefix($0) }) {
            throw EditError("cannot move the selection into \(inside) or its own subtree", at: inside)
        }
        if let index, index < 0 { throw EditError("index \(index) is out of range: give 0 or more", at: parent) }
        // Where the nodes go, as a gap among the parent's children as they are now: `index`
        // counted after the selected children left.
        var tracker = PathTracker(selected + [parent])
        var gap = index
        if var g = index {
            for s in selected.filter({ $0.parent == parent }).map({ $0.indices.last! }).sorted() where s < g { g += 1 }
            gap = g
        }
        var changes: [Change] = []
        for k in selected.indices {
            let node = tracker.paths[k], destination = tracker.paths[selected.count]
            tracker.remove(node)
            if let g = gap, node.parent == destination, node.indices.last! < g { gap = g - 1 }
            changes.append(.move(node, parent: destination, index: gap))
            let landed = tracker.paths[selected.count]
            if let g = gap {
                tracker.insert(at: landed, index: g)
                gap = g + 1
            }
        }
        return changes
    }

    static func indent(_ selected: [TreePath]) throws(EditError) -> [Change] {
        let chosen = Set(selected)
        var plans: [(node: Int, under: TreePath)] = []
        for (k, path) in selected.enumerated() {
            var above = path.indices.last! - 1
            while above >= 0, chosen.contains(path.parent.appending(above)) { above -= 1 }
            if above >= 0 { plans.append((k, path.parent.appending(above))) }
        }
        guard !plans.isEmpty else {
            throw EditError("nothing to indent: no selected row has a row above it in its level to go under", at: selected[0])
        }
        var tracker = PathTracker(selected + plans.map(\.under))
        var changes: [Change] = []
        for (n, plan) in plans.enumerated() {
            let node = tracker.paths[plan.node], under = tracker.paths[selected.count + n]
            changes.append(.move(node, parent: under, index: nil))
            // Appending shifts no other path; only the removal does.
            tracker.remove(node)
        }
        return changes
    }

    static func outdent(_ selected: [TreePath]) throws(EditError) -> [Change] {
        let movable = selected.filter { $0.depth >= 2 }
        guard !movable.isEmpty else {
            throw EditError("nothing to outdent: the selected rows are already at the top level", at: selected[0])
        }
        // Each node goes just after its parent, or after the node outdented from the same parent before it.
        var tracker = PathTracker(movable + movable.map(\.parent))
        var after: [TreePath: Int] = [:]   // a parent (as selected) -> the tracked slot of the last node placed after it
        var changes: [Change] = []
        for (k, original) in movable.enumerated() {
            let node = tracker.paths[k]
            let anchorSlot = after[original.parent] ?? (movable.count + k)
            tracker.remove(node)
            let anchor = tracker.paths[anchorSlot]
            let index = anchor.indices.last! + 1
            changes.append(.move(node, parent: anchor.parent, index: index))
            tracker.insert(at: anchor.parent, index: index)
            tracker.paths[k] = anchor.parent.appending(index)
            after[original.parent] = k
        }
        return changes
    }
}

/// Paths followed through removals and insertions of nodes, so each names the same node after them.
struct PathTracker {
    var paths: [TreePath]

    init(_ paths: [TreePath]) { self.paths = paths }

    /// After the node at `removed` left: the nodes after it among its siblings (and below them)
    /// move up one. Only the paths before index `before` (all by default) are followed.
    mutating func remove(_ removed: TreePath, before: Int? = nil) {
        guard !removed.isRoot else { return }
        let level = removed.depth - 1, gone = removed.indices[level]
        for k in paths.indices.prefix(before ?? paths.count) where paths[k].depth > level && paths[k].indices.starts(with: removed.indices[..<level]) {
            if paths[k].indices[level] > gone { paths[k].indices[level] -= 1 }
        }
    }

    /// After a node was inserted as child `index` of `parent`: the nodes from there on move down one.
    mutating func insert(at parent: TreePath, index: Int, before: Int? = nil) {
        let level = parent.depth
        for k in paths.indices.prefix(before ?? paths.count) where paths[k].depth > level && paths[k].hasPrefix(parent) {
            if paths[k].indices[level] >= index { paths[k].indices[level] += 1 }
        }
    }

    /// After the node at `old` moved to `new` (its path once moved): the nodes under it follow
    /// it, the others shift as its removal and insertion say.
    mutating func move(_ old: TreePath, to new: TreePath, before: Int? = nil) {
        var inside: [Int: ArraySlice<Int>] = [:]
        for k in paths.indices.prefix(before ?? paths.count) where paths[k].hasPrefix(old) && !old.isRoot { inside[k] = paths[k].indices.dropFirst(old.depth) }
        remove(old, before: before)
        guard !new.isRoot else { return }
        insert(at: new.parent, index: new.indices.last!, before: before)
        for (k, rest) in inside { paths[k] = TreePath(new.indices + rest) }
    }
}
