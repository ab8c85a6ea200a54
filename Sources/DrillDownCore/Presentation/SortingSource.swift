/// A ``Source`` whose store can list a level already sorted (a database's `ORDER BY`), so the
/// ``Presenter`` need not read the whole level to sort it.
public protocol SortingSource: Source {
    /// Whether the children of `id` come, in the data, already in `rule`'s order.
    func sorts(childrenOf id: NodeID, by rule: SortRule) -> Bool
}
