/// The rule for Revert, in one place for every store and front end: an old step's inverse is
/// applied as a new step, with its paths carried through every later step (a row added above
/// it moves it down one), and refused, with the reason, when a later step depends on it: it
/// changed, moved into or deleted a row the inverse would change.
///
/// ```swift
/// let changes = try RevertPlan.changes(reverting: record, later: log.records(after: record.id))
/// try await model.apply(changes)
/// ```
public enum RevertPlan {
    /// The changes that revert `record` now, given every record after it, oldest first.
    /// - Throws: ``EditError`` naming the later step it depends on, or when the record cannot be
    ///   reverted (it has no inverse, or it was an Undo that a Redo took back).
    public static func changes(reverting record: HistoryRecord, later: [HistoryRecord]) throws(EditError) -> [Change] {
        guard !record.inverse.isEmpty else { throw EditError("#\(record.id) (\(record.summary)) has nothing to revert") }
        if let again = later.first(where: { ($0.kind == .revert || $0.kind == .undo) && $0.target == record.id }) {
            throw EditError("#\(record.id) (\(record.summary)) was already taken back by #\(again.id) (\(again.who))", reason: .conflict)
        }
        // The rows a restoring insert puts back (where it was, where it goes now): the inserts of
        // their children follow them, since no later step can have touched rows that were not there.
        var restored: [(from: TreePath, to: TreePath)] = []
        var result: [Change] = []
        for change in record.inverse {
            if case .insert(let node, let parent, let index) = change, let row = restored.first(where: { parent.hasPrefix($0.from) }) {
                result.append(.insert(node, parent: TreePath(row.to.indices + parent.indices.dropFirst(row.from.depth)), index: index))
                continue
            }
            var carried = change
            for step in later {
                for (k, later) in step.changes.enumerated() {
                    carried = try carry(carried, through: later, produced: k < step.paths.count ? step.paths[k] : later.path, of: step, reverting: record)
                }
            }
            if case .insert(_, let parent, let index?) = change, case .insert(_, let now, let at?) = carried {
                restored.append((parent.appending(index), now.appending(at)))
            }
            result.append(carried)
        }
        return result
    }

    /// `change` (of the revert) in the data after `later` (a change of the step `step`).
    static func carry(_ change: Change, through later: Change, produced: TreePath, of step: HistoryRecord, reverting record: HistoryRecord) throws(EditError) -> Change {
        func refuse(_ what: String, _ path: TreePath) -> EditError {
            EditError(
                "cannot revert #\(record.id) (\(record.summary)): #\(step.id) by \(step.who) (\(step.summary)) \(what) since; revert that first",
                at: path, reason: .conflict)
        }
        // A row the revert changes: a later change of it, or of a row below it when the revert deletes it, depends on it.
        func row(_ path: TreePath, whole: Bool) throws(EditError) -> TreePath {
            switch later {
            case .updateTitle(let p, _), .setAttribute(let p, _, _), .setValue(let p, _):
                if p == path || whole && p.hasPrefix(path) { throw refuse("changed it", path) }
            case .insert(_, let parent, _):
                if whole && parent.hasPrefix(path) { throw refuse("added a row below it", path) }
            case .delete(let p):
                if path.hasPrefix(p) { throw refuse("deleted it", path) }
            case .move(let p, _, _):
                if whole && p.hasPrefix(path) && p != path { throw refuse("moved a row out of it", path) }
            }
            guard let moved = PathShift.forward(path, through: later, produced: produced) else { throw refuse("deleted it", path) }
            return moved
        }
        // A place the revert puts a row (a parent and index).
        func place(_ parent: TreePath, _ index: Int?) throws(EditError) -> (TreePath, Int?) {
            if case .delete(let p) = later, parent.hasPrefix(p) { throw refuse("deleted the row it goes back into", parent) }
            guard let index else {
                guard let moved = PathShift.forward(parent, through: later, produced: produced) else { throw refuse("deleted the row it goes back into", parent) }
                return (moved, nil)
            }
            guard let slot = PathShift.forward(parent.appending(index), through: later, produced: produced, slot: true) else {
                throw refuse("deleted the row it goes back into", parent)
            }
            return (slot.parent, slot.indices.last)
        }
        switch change {
        case .updateTitle(let p, let title): return .updateTitle(try row(p, whole: false), title: title)
        case .setAttribute(let p, let key, let value): return .setAttribute(try row(p, whole: false), key: key, value: value)
        case .setValue(let p, let value): return .setValue(try row(p, whole: false), value: value)
        case .delete(let p): return .delete(try row(p, whole: true))
        case .insert(let node, let parent, let index):
            let (p, i) = try place(parent, index)
            return .insert(node, parent: p, index: i)
        case .move(let p, let parent, let index):
            let from = try row(p, whole: false)
            let (to, i) = try place(parent, index)
            return .move(from, parent: to, index: i)
        }
    }
}
