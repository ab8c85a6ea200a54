/// A ``Source`` whose store can sort a level itself (a database's `ORDER BY`), so the ``Presenter``
/// need not read every row of the level through the source to sort it.
///
/// A store either reads the level in the rule's order (``sorts(childrenOf:by:)``: a relational
/// level whose `ORDER BY` leads with the rule's column), or answers the level's display order in
/// one query (``sortedOrder(ofChildren:by:descending:ignoring:)``: a tree table). Either way the
/// order is the one ``SortValue`` gives, and TreePaths keep naming the data.
public protocol SortingSource: Source {
    /// Whether the children of `id` come, in the data, already in `rule`'s order.
    func sorts(childrenOf id: NodeID, by rule: SortRule) -> Bool
    /// The display order of the children of `id` sorted by `field` as ``SortValue`` compares
    /// (skipping `articles`), computed by the store; `nil` when it cannot.
    func sortedOrder(ofChildren id: NodeID, by field: SortField, descending: Bool, ignoring articles: [String]) -> LevelOrder?
}

extension SortingSource {
    public func sorts(childrenOf id: NodeID, by rule: SortRule) -> Bool { false }
    public func sortedOrder(ofChildren id: NodeID, by field: SortField, descending: Bool, ignoring articles: [String]) -> LevelOrder? { nil }
}

/// The one value a store sorts a row by: the row's own title, or one attribute (read raw).
public enum SortField: Sendable, Hashable {
    /// The node's own title (no template).
    case title
    /// One attribute, by key (ASCII case ignored).
    case attribute(String)
}
