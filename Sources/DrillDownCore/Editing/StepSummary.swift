/// What an undoable step did, in words a menu or a notice can show ("Rename of Ringtone to
/// Chime", "Move of 3 rows", "Delete of Marimba", "Change of port"): every store describes its
/// steps with it, so Undo and Redo say the same thing on every front end.
///
/// The titles are read in the data as it was before the step (`before`): the changes' paths
/// address it.
///
/// ```swift
/// StepSummary.describe([.updateTitle([0, 3], title: "Chime")], in: source)   // "Rename of Ringtone to Chime"
/// StepSummary.describe([.delete([0, 1]), .delete([0, 2])], in: source)      // "Delete of 2 rows"
/// ```
public enum StepSummary {
    /// The longest title a summary quotes whole; longer ones are cut with "…".
    public static let titleLimit = 40

    /// A short description of `changes` applied as one step to `before`.
    /// - Complexity: O(changes + depth of the first change's path).
    public static func describe(_ changes: [Change], in before: any Source) -> String {
        guard let first = changes.first else { return "Change" }
        // The rows addressed (a single change needs no set).
        let paths = changes.count == 1 ? [first.path] : Set(changes.map(\.path))
        func title(_ path: TreePath) -> String {
            guard let id = before.node(at: path) else { return "row \(path)" }
            return shortTitle(id == before.root ? before.rootTitle : before.title(of: id))
        }
        // Rows added, deleted or moved are counted by change (a selection's paths may repeat as
        // each change leaves the level shifted); other changes by the rows they address.
        let alike = changes.allSatisfy { $0.kind == first.kind }
        if changes.count == 1 || alike && (paths.count > 1 || first.countsEachChange) {
            let count = "\(changes.count) rows"
            switch first {
            case .insert(let node, _, _):
                return "Addition of " + (changes.count == 1 ? shortTitle(node.title) : count)
            case .updateTitle(let path, let new):
                return changes.count == 1 ? "Rename of \(title(path)) to \(shortTitle(new))" : "Rename of \(count)"
            case .setAttribute(let path, let key, let value):
                guard changes.count == 1 else { return "Change of \(count)" }
                return value == nil ? "Removal of \(shortTitle(key)) from \(title(path))" : "Change of \(shortTitle(key)) of \(title(path))"
            case .setValue(let path, _):
                return "Change of " + (changes.count == 1 ? title(path) : count)
            case .delete(let path):
                return "Delete of " + (changes.count == 1 ? title(path) : count)
            case .move(let path, _, _):
                return "Move of " + (changes.count == 1 ? title(path) : count)
            }
        }
        // Several changes of one row (a form's fields, an action's attributes), or a mix.
        if paths.count > 1 { return "Edit of \(paths.count) rows" }
        return "Change of \(title(first.path))"
    }

    /// `text` on one line, cut to ``titleLimit`` characters, as summaries quote titles.
    public static func shortTitle(_ text: String) -> String {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count <= titleLimit ? line : line.prefix(titleLimit - 1) + "…"
    }
}

extension Change {
    /// The case, without its values: changes of one kind are summed up together.
    var kind: Int {
        switch self {
        case .insert: 0
        case .updateTitle: 1
        case .setAttribute: 2
        case .setValue: 3
        case .delete: 4
        case .move: 5
        }
    }

    /// Whether a step of several such changes is counted by change (rows added, deleted or moved)
    /// rather than by the rows it addresses.
    var countsEachChange: Bool {
        switch self {
        case .insert, .delete, .move: true
        case .updateTitle, .setAttribute, .setValue: false
        }
    }
}
