import DrillDownCore

/// The rows of a tree table in memory (``ParentLinkedRows``), for reading a table whole (`convert`).
struct NodeRows {
    var rows = ParentLinkedRows()

    mutating func append(id: Int64, parent: Int64?, position: Int64, kind: Int16, key: String?, value: String?) {
        rows.append(id: id, parent: parent, position: position, kind: Int64(kind), key: key, value: value)
    }

    /// The tree, children ordered by position, then id.
    func build() throws(ParentLinkedRows.Invalid) -> TreeStore { try rows.build().tree }
}
