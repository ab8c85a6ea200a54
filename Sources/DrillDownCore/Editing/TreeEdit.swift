/// One splice of an ``EditStep`` as a store that keeps the tree elsewhere (a database) writes it:
/// a range of one container's children replaced by new or relinked subtrees.
///
/// Node ids are stable across the splices of a step: ``container`` and every child that survives
/// mean the same node in ``before`` and ``after``; an inserted child has an id that ``before``
/// does not use, and a child put back where the step took it from (a rename, a move) keeps its id.
///
/// ```swift
/// var document = EditableDocument(tree: tree)
/// try document.apply([.setAttribute([0], key: "plays", value: Scalar(.integer, "6"))])
/// for edit in document.undoHistory.last!.edits {
///     let gone = edit.removed, added = edit.added   // rows to delete, rows to insert or relink
/// }
/// ```
public struct TreeEdit: Sendable {
    /// The container whose children change (the same id in both trees).
    public let container: NodeID
    /// The positions of the children replaced, in ``before``.
    public let range: Range<Int>
    /// How many children took their place.
    public let inserted: Int
    /// The tree before this splice.
    public let before: TreeStore
    /// The tree after it.
    public let after: TreeStore

    /// The children taken away (ids of ``before``).
    public var removed: [NodeID] { range.map { before.children(of: container)[$0] } }

    /// The children put in their place (ids of ``after``), in order.
    public var added: [NodeID] {
        let kids = after.children(of: container)
        return (range.lowerBound ..< range.lowerBound + inserted).map { kids[$0] }
    }

    /// The splice that takes this one back: the added children replaced by the removed ones, from
    /// the tree after to the tree before (a database store writes a step's inverses, last first, to undo it).
    public var inverse: TreeEdit {
        TreeEdit(container: container, range: range.lowerBound ..< range.lowerBound + inserted, inserted: range.count, before: after, after: before)
    }

    /// Whether the splice adds after the last child (an append), so a store that others write
    /// too appends after whatever is last by then.
    public var appends: Bool { range.isEmpty && range.lowerBound == before.childCount(of: container) }
}
