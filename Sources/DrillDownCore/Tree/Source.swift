/// Where nodes come from: the data source every front end reads, shaped like a table view's data source.
///
/// A source answers a few cheap questions about node ids. Children of a node are a
/// ``NodeRange``: usually a contiguous id range, runs of ids in a level changed by edits.
/// The seed-shaped, path-based API (`numberOfChildren(of:)`, `node(at:)`) is provided on top.
public protocol Source: Sendable {
    /// The root node; its children are the first level.
    var root: NodeID { get }
    /// One past the greatest node id (the size of per-node side tables).
    var capacity: Int { get }
    /// The title of the root level ("Root" unless the data names it).
    var rootTitle: String { get }
    /// The children of `id`, in order.
    func children(of id: NodeID) -> NodeRange
    /// The parent of `id`; `nil` for the root.
    func parent(of id: NodeID) -> NodeID?
    /// The title shown for `id` in a list.
    func title(of id: NodeID) -> String
    /// The scalar value of a leaf, if it has one.
    func value(of id: NodeID) -> Scalar?
    /// The node's attributes: the scalars shown in its detail view.
    func attributes(of id: NodeID) -> [Attribute]
    /// The attribute named `key` (ASCII case-insensitive), if present.
    func attribute(_ key: String, of id: NodeID) -> Scalar?
    /// The fields the storage itself gives the row `id` (a relational table's columns, typed and
    /// constrained by the database), or `nil` (the default) to take them from the schema and the
    /// row's attributes (see ``FieldForm``).
    func storedFields(of id: NodeID) -> [Field]?
    /// The fields the storage gives a new child of `parent`, or `nil` (the default).
    func storedFields(forNewChildOf parent: NodeID) -> [Field]?
    /// The schema kind the storage gives a new child of `parent` (a relational level's `kind`),
    /// or `nil` (the default): which kind's `fields:` and `formats:` refine its stored fields.
    func kind(ofNewChildOf parent: NodeID) -> String?
    /// Whether the children of `parent` keep an order the storage gives them (a relational level
    /// ordered by its key), so they cannot be put in another order; `false` (the default).
    func keepsOrder(ofChildrenOf parent: NodeID) -> Bool
    /// The data indices (ascending) of the children of `id` that `filter` matches, computed by the
    /// store (a database's `WHERE` with bound values), or `nil` (the default) to let the
    /// ``Presenter`` scan the level (documents).
    func matchingIndices(ofChildren id: NodeID, where filter: BoundFilter) -> [Int]?
    /// The nodes at any depth under `id` that `filter` matches (depth-first, at most `limit`) and
    /// how many match in all, computed by the store; `nil` (the default) to let the presenter walk.
    func matchingNodes(under id: NodeID, where filter: BoundFilter, limit: Int) -> (hits: [NodeID], total: Int)?
    /// The most frequent values of `field` among the children of `id` that `filter` matches
    /// (`nil`: all), counted by the store (`GROUP BY`), or `nil` (the default) to let the presenter count.
    func facet(ofChildren id: NodeID, field: BoundFilter.Test, where filter: BoundFilter?, limit: Int) -> Facet?
}

extension Source {
    public func storedFields(of id: NodeID) -> [Field]? { nil }
    public func storedFields(forNewChildOf parent: NodeID) -> [Field]? { nil }
    public func kind(ofNewChildOf parent: NodeID) -> String? { nil }
    public func keepsOrder(ofChildrenOf parent: NodeID) -> Bool { false }
    public func matchingIndices(ofChildren id: NodeID, where filter: BoundFilter) -> [Int]? { nil }
    public func matchingNodes(under id: NodeID, where filter: BoundFilter, limit: Int) -> (hits: [NodeID], total: Int)? { nil }
    public func facet(ofChildren id: NodeID, field: BoundFilter.Test, where filter: BoundFilter?, limit: Int) -> Facet? { nil }
}

extension Source {
    /// The number of children of `id`.
    public func childCount(of id: NodeID) -> Int { children(of: id).count }

    /// The position of `id` among its siblings (0 for the root).
    public func position(of id: NodeID) -> Int {
        guard let p = parent(of: id) else { return 0 }
        return children(of: p).position(of: id) ?? 0
    }

    /// The TreePath of `id`.
    /// - Complexity: O(depth)
    public func path(of id: NodeID) -> TreePath {
        var indices: [Int] = []
        var n = id
        while let p = parent(of: n) {
            indices.append(children(of: p).position(of: n) ?? 0)
            n = p
        }
        return TreePath(indices.reversed())
    }

    /// The node at `path`, or `nil` if the path leaves the tree.
    /// - Complexity: O(depth)
    public func node(at path: TreePath) -> NodeID? {
        var n = root
        for i in path.indices {
            let range = children(of: n)
            guard i >= 0, i < range.count else { return nil }
            n = range[i]
        }
        return n
    }

    /// A table view's question: how many sub-items has the item at `path` (`nil` = the root)?
    public func numberOfChildren(of path: TreePath?) -> Int {
        guard let id = node(at: path ?? .root) else { return 0 }
        return childCount(of: id)
    }

    /// The title of the screen that lists the children of `id`.
    public func levelTitle(of id: NodeID) -> String { id == root ? rootTitle : title(of: id) }

    /// The ids from the root down to `id`, both included.
    public func lineage(of id: NodeID) -> [NodeID] {
        var chain = [id]
        var n = id
        while let p = parent(of: n) {
            chain.append(p)
            n = p
        }
        return chain.reversed()
    }

    /// The depth of `id` (the root has depth 0).
    public func depth(of id: NodeID) -> Int {
        var d = 0
        var n = id
        while let p = parent(of: n) {
            d += 1
            n = p
        }
        return d
    }

    /// The slash-separated title path of `id`, e.g. `Item 4/Screen G` (slashes in titles escaped as `\/`).
    public func titlePath(of id: NodeID) -> String {
        lineage(of: id).dropFirst().map { title(of: $0).replacingOccurrences(of: "/", with: "\\/") }
            .joined(separator: "/")
    }
}
