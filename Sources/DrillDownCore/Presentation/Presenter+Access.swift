/// Levels as one reader sees them (``Presenter/access``): rows the reader may not reach are not
/// listed, counted (in a level's size or a row's child count) or given a display position
/// (``child(of:at:)``, ``displayPosition(of:)``); TreePaths keep naming the data.
extension Presenter {
    /// The number of rows the level under `id` lists for this presenter's reader.
    public func rowCount(of id: NodeID) -> Int { listedIndices(of: id)?.count ?? source.childCount(of: id) }

    /// The number of children of `id` (at `path`, when known) listed for this presenter's reader:
    /// a row's ``Row/childCount`` counts no hidden row.
    /// - Complexity: O(1) without hidden rows, else O(grants × depth) (more on the way to a grant).
    func listedCount(of id: NodeID, at path: TreePath?) -> Int {
        let count = source.childCount(of: id)
        guard count > 0, let access, access.hidesRows else { return count }
        let base = id == source.root ? TreePath.root : (path ?? source.path(of: id))
        return access.listedChildren(of: base, count: count)?.count ?? count
    }

    /// The data indices of the rows of the level under `id` in display order, when the reader
    /// may not reach some of them; `nil` when every row is listed.
    /// A filtered level (``filtering(_:by:)``) lists only its matching rows.
    public func listedIndices(of id: NodeID) -> [Int]? {
        let filtered = filteredIndices(of: id)
        guard let access, access.hidesRows else { return filtered }
        let count = source.childCount(of: id)
        let base = id == source.root ? TreePath.root : source.path(of: id)
        guard let listed = access.listedChildren(of: base, count: count) else { return filtered }
        if let filtered {
            let keep = Set(listed)
            return filtered.filter(keep.contains)
        }
        guard let order = order(of: id) else { return listed }
        let keep = Set(listed)
        return (0 ..< order.count).map(order.dataIndex(at:)).filter(keep.contains)
    }
}
