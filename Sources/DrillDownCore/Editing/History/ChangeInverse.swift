/// The changes that take a step back, computed from the data before it: what an old step's
/// Revert (or a user's Undo) applies as a new step. Every store records it with the step.
///
/// The inverse of each change is computed in the data as the step's earlier changes left it
/// (read in `before` through `PathShift`), and the inverses are listed last change first, so
/// applied in order to the data after the step they give back the data before it:
///
/// | change | inverse |
/// |---|---|
/// | rename to T | rename to the old title |
/// | set attribute / value | set the old one (unset when there was none) |
/// | insert (the new row at P) | delete P |
/// | delete P | insert the row again at P, with its attributes and everything below it |
/// | move P to Q | move Q back to P's parent at P's index |
///
/// ```swift
/// let inverse = ChangeInverse.of([.updateTitle([0], title: "New")], paths: [[0]], in: before)
/// // [.updateTitle([0], title: "Old")]
/// ```
public enum ChangeInverse {
    /// The inverse of `changes` (with the `paths` they affected) applied as one step to `before`.
    /// - Complexity: O(changes² + the size of deleted subtrees).
    public static func of(_ changes: [Change], paths: [TreePath], in before: any Source) -> [Change] {
        var inverses: [[Change]] = []
        inverses.reserveCapacity(changes.count)
        // Values a change of this step already set: a later change of the same value reverts to it.
        var setTitles: [TreePath: String] = [:]
        var setAttributes: [TreePath: [String: Scalar?]] = [:]
        var setValues: [TreePath: Scalar] = [:]
        for (k, change) in changes.enumerated() {
            let produced = k < paths.count ? paths[k] : change.path
            // The node `path` (in the data before change k) names in `before`, if it existed then.
            func original(_ path: TreePath) -> NodeID? {
                var p: TreePath? = path
                for j in stride(from: k - 1, through: 0, by: -1) {
                    guard let q = p else { return nil }
                    p = PathShift.backward(q, through: changes[j], produced: j < paths.count ? paths[j] : changes[j].path)
                }
                return p.flatMap { before.node(at: $0) }
            }
            switch change {
            case .updateTitle(let path, let title):
                defer { setTitles[path] = title }
                guard let old = setTitles[path] ?? original(path).map({ before.title(of: $0) }) else { inverses.append([]); continue }
                inverses.append([.updateTitle(produced, title: old)])
            case .setAttribute(let path, let key, let value):
                defer { setAttributes[path, default: [:]][key] = value }
                if let earlier = setAttributes[path]?[key] {
                    inverses.append([.setAttribute(produced, key: key, value: earlier)])
                } else if let id = original(path) {
                    inverses.append([.setAttribute(produced, key: key, value: before.attribute(key, of: id))])
                } else {
                    inverses.append([])
                }
            case .setValue(let path, let value):
                defer { setValues[path] = value }
                guard let old = setValues[path] ?? original(path).flatMap({ before.value(of: $0) }) else { inverses.append([]); continue }
                inverses.append([.setValue(produced, value: old)])
            case .insert:
                inverses.append([.delete(produced)])
            case .delete(let path):
                guard let id = original(path) else { inverses.append([]); continue }
                inverses.append(restoring(id, in: before, parent: path.parent, index: path.indices.last ?? 0))
                // Values set on the deleted row by this step are restored as they were before it.
                setTitles = setTitles.filter { !$0.key.hasPrefix(path) }
            case .move(let from, _, _):
                let parent = PathShift.forward(from.parent, through: change, produced: produced) ?? from.parent
                inverses.append([.move(produced, parent: parent, index: from.indices.last ?? 0)])
            }
        }
        return inverses.reversed().flatMap { $0 }
    }

    /// Whether ``of(_:paths:in:)`` reads the data before the step only at the changes' own paths,
    /// so a store can compute the inverse before it writes the step (with each change's own path
    /// for its affected path): true unless a change inserts or moves a row, whose affected path
    /// is known only after it.
    public static func readsBefore(_ changes: [Change]) -> Bool {
        !changes.contains { if case .insert = $0 { true } else if case .move = $0 { true } else { false } }
    }

    /// Whether the inverse of `changes` reads nothing in the data (a single insert or move): a
    /// store can compute it after the step.
    public static func readsNothing(_ changes: [Change]) -> Bool { changes.count == 1 && !readsBefore(changes) }

    /// The inserts that put the row `id` of `source` back as the child of `parent` at `index`,
    /// with its attributes (or value) and everything below it, parents first.
    static func restoring(_ id: NodeID, in source: any Source, parent: TreePath, index: Int) -> [Change] {
        var result: [Change] = []
        let generic = source.documentSource.map { if case .generic = $0.mode { true } else { false } } ?? false
        func add(_ id: NodeID, parent: TreePath, index: Int?, at path: TreePath) {
            let value = source.value(of: id)
            let node = NewNode(title: source.title(of: id), attributes: generic || value != nil ? [] : source.attributes(of: id), value: value)
            result.append(.insert(node, parent: parent, index: index))
            guard value == nil else { return }
            for (i, child) in source.children(of: id).enumerated() {
                add(child, parent: path, index: nil, at: path.appending(i))
            }
        }
        add(id, parent: parent, index: index, at: parent.appending(index))
        return result
    }
}
