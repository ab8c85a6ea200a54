import DrillDownCore

/// Where a ``TreeTableSource`` reads the rows of a tree table: an SQLite file (``SQLiteNodeRows``)
/// or a PostgreSQL table (in DrillDownPostgres). The same model in both: one row per node with
/// its parent, position, kind, key, value and number of children.
///
/// A reader opens a connection (or a transaction) for a batch of queries; the source asks for
/// everything a page needs inside one ``read(_:)``.
package protocol NodeRowReader: Sendable {
    /// What the rows are in, for messages (a file path, a `postgres://` URL's table).
    var origin: String { get }
    /// Runs `body` with queries bound to an open connection.
    func read<T>(_ body: (any NodeRowQueries) throws -> T) throws -> T
    /// A one-line description of an error a query threw, without ``origin`` (the caller names it).
    func describe(_ error: any Error) -> String
}

/// The queries a ``TreeTableSource`` needs, bound to one open connection. Rows come in sibling
/// order (position, then id); keys are compared ASCII case-insensitively where noted.
package protocol NodeRowQueries {
    /// A number that changes whenever another writer committed (`PRAGMA data_version`, a revision).
    func version() throws -> Int64
    /// Up to two rows without a parent, by id (a tree has exactly one).
    func roots() throws -> [NodeRecord]
    /// The row with id `id`, if there is one.
    func row(id: Int64) throws -> NodeRecord?
    /// Up to `limit` children of `parent` after `(position, id)` (keyset pagination).
    func children(of parent: Int64, after: (Int64, Int64)?, limit: Int) throws -> [NodeRecord]
    /// The `(position, id)` of up to `limit` children of `parent` after `after`, read from the index only.
    func keys(of parent: Int64, after: (Int64, Int64)?, limit: Int) throws -> [(Int64, Int64)]
    /// The first child of `parent` whose key is `lowercasedKey`, ASCII case ignored.
    func member(of parent: Int64, lowercasedKey: String) throws -> NodeRecord?
    /// Every child of each of `parents`, grouped by parent.
    func children(ofAll parents: [Int64]) throws -> [(parent: Int64, row: NodeRecord)]
    /// The kind and text of every child of each of `parents` (the elements of small arrays).
    func elements(ofAll parents: [Int64]) throws -> [(parent: Int64, kind: ValueKind, value: String?)]
    /// Through a text index, the visible rows of the outline convention that may contain `needle`
    /// (ignoring case) in their title (a member keyed by one of `titleKeys`, or a scalar row's
    /// value) or, with `values`, in an attribute: the first `limit` (in document order, or in storage
    /// order when there are very many) and how many there are.
    /// A row is shown when its parent is the root array or an array keyed by one of `listKeys`.
    /// `nil` when the storage has no such index.
    func outlineCandidates(containing needle: String, titleKeys: [String], listKeys: [String], values: Bool, limit: Int) throws -> (rows: [Int64], total: Int)?
    /// The rows from the root down to row `id`: each one's index among its siblings and whether its parent is an array.
    func lineage(of id: Int64) throws -> [(id: Int64, index: Int, parentIsArray: Bool)]
    /// The children of `parent` in display order, as their indices in sibling order: sorted by the
    /// value of their first member keyed by one of `memberKeys` (earlier keys win; a scalar child by
    /// its own value when `scalarsByValue`), as ``SortValue`` orders it, `articles` skipped, descending
    /// if asked, rows without a value last, ties in sibling order. `nil` when the storage cannot.
    func sortedIndices(of parent: Int64, memberKeys: [String], scalarsByValue: Bool, descending: Bool, articles: [String]) throws -> [Int32]?
}

extension NodeRowQueries {
    /// No index: searches walk the source.
    package func outlineCandidates(
        containing needle: String, titleKeys: [String], listKeys: [String], values: Bool, limit: Int
    ) throws -> (rows: [Int64], total: Int)? {
        nil
    }

    package func lineage(of id: Int64) throws -> [(id: Int64, index: Int, parentIsArray: Bool)] { [] }

    /// No sorting in the storage: the presenter sorts.
    package func sortedIndices(of parent: Int64, memberKeys: [String], scalarsByValue: Bool, descending: Bool, articles: [String]) throws -> [Int32]? {
        nil
    }
}
