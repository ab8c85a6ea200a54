extension Source {
    /// The rows below ``root``, the most children of any row (the root's included) and the depth
    /// of the deepest row (top-level rows have depth 1; all three 0 when there are no rows), by a
    /// walk of ``children(of:)``.
    ///
    /// Any source can be counted this way; a freshly read document counts faster on its store
    /// (``DocumentSource/rowShape()``), a database in SQL.
    /// - Complexity: O(rows), one ``children(of:)`` call per row.
    public func walkedRowShape() -> (rows: Int, widest: Int, depth: Int) {
        let top = children(of: root)
        guard !top.isEmpty else { return (0, 0, 0) }
        var rows = top.count, widest = top.count, deepest = 1
        var stack = top.map { ($0, 1) }
        while let (n, depth) = stack.popLast() {
            let kids = children(of: n)
            guard !kids.isEmpty else { continue }
            rows += kids.count
            widest = max(widest, kids.count)
            deepest = max(deepest, depth + 1)
            for c in kids { stack.append((c, depth + 1)) }
        }
        return (rows, widest, deepest)
    }
}
