/// What the store beneath answers for its own rows (sorting, move rules, an indexed search) is
/// still answered by it through the opened view; the fields' nodes answer as a generic document.
extension EmbeddedFieldSource: SortingSource, MoveRules, IndexedSearch {
    /// Whether the store's answer for the children of `id` covers them all: a row of the store
    /// whose children include no field's node.
    func storeLevel(_ id: NodeID) -> Bool { isRow(id) && (id == root || group(of: id) == nil || fields.opening == .values) }

    public func sorts(childrenOf id: NodeID, by rule: SortRule) -> Bool {
        storeLevel(id) && (base as? any SortingSource)?.sorts(childrenOf: id, by: rule) == true
    }

    public func sortedOrder(ofChildren id: NodeID, by field: SortField, descending: Bool, ignoring articles: [String]) -> LevelOrder? {
        guard storeLevel(id) else { return nil }
        return (base as? any SortingSource)?.sortedOrder(ofChildren: id, by: field, descending: descending, ignoring: articles)
    }

    public func moveRefusal(of moving: NodeID, into parent: NodeID) -> String? {
        guard isRow(moving), isRow(parent), opened(parent) == nil else { return "a row cannot move into or out of the JSON of a field" }
        return (base as? any MoveRules)?.moveRefusal(of: moving, into: parent)
    }

    public func canHoldChildren(_ id: NodeID) -> Bool {
        guard isRow(id), opened(id) == nil else { return false }
        return (base as? any MoveRules)?.canHoldChildren(id) ?? true
    }

    public func ownOrder(ofChildrenOf parent: NodeID) -> String? {
        isRow(parent) ? (base as? any MoveRules)?.ownOrder(ofChildrenOf: parent) : nil
    }

    public func indexedFind(_ query: SearchQuery, until isCancelled: () -> Bool) throws(SearchCancelled) -> SearchResult? {
        guard let indexed = base as? any IndexedSearch else { return nil }
        return try indexed.indexedFind(query, until: isCancelled)
    }
}
