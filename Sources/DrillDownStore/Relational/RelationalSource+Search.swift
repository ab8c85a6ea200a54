import DrillDownCore
import GRDB

extension RelationalSource: IndexedSearch {
    /// The most candidate rows a search reads; above it the total is counted in SQL.
    static let searchCandidateLimit = 20_000

    /// Title search in SQL on PostgreSQL (each level's title column with `ILIKE`, which a trigram
    /// index on that column serves: `CREATE INDEX … USING gin (name gin_trgm_ops)`), instead of
    /// reading every level a page at a time. One query finds the candidates of every level in
    /// document order: each level's rows joined to their ancestors (so rows outside the tree are not
    /// counted), ordered by the ancestors' order terms, a row before its descendants. Each candidate
    /// is checked with the walk's own rule (its title, lowercased, contains the lowercased query),
    /// and the first hits are placed in the tree by counting their preceding siblings, level by level.
    /// SQLite, and searches of values, walk (`nil`).
    public func indexedFind(_ query: SearchQuery, until isCancelled: () -> Bool) throws(SearchCancelled) -> SearchResult? {
        guard let first = levels.first, first.dialect == .postgres, !query.includeValues else { return nil }
        let needle = query.text.lowercased()
        guard !needle.isEmpty else { return SearchResult(hits: [], total: 0) }
        do {
            let (candidates, counted) = try access.read { db in try searchCandidates(query.text, db) }
            if isCancelled() { throw SearchCancelled() }
            var hits: [NodeID] = []
            var total = 0
            for candidate in candidates where candidate.title.lowercased().contains(needle) {
                total += 1
                if hits.count < query.limit, let id = try node(of: candidate) { hits.append(id) }
            }
            return SearchResult(hits: hits, total: counted ?? total)
        } catch let cancelled as SearchCancelled {
            throw cancelled
        } catch {
            cache.withState { failed(error, &$0) }
            return nil
        }
    }

    /// A row the search found: its level, title, and the order values of it and of each of its ancestors.
    struct Candidate {
        var depth: Int
        var title: String
        var chain: [[DatabaseValue]]
    }

    /// The candidates in document order (at most ``searchCandidateLimit``), and the total counted in
    /// SQL when there are more.
    func searchCandidates(_ text: String, _ db: any RelationalConnection) throws -> ([Candidate], Int?) {
        let pattern = "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        var branches: [String] = []
        var arguments: [DatabaseValue] = []
        for depth in levels.indices {
            var columns = ["\(depth) AS depth", "\(alias(depth)).\(levels[depth].read(levels[depth].title)) AS title"]
            var joins = "\(levels[depth].quotedTable) \(alias(depth))"
            for i in levels.indices {
                let level = levels[i]
                for (j, term) in level.order.enumerated() {
                    if i <= depth {
                        columns.append("\(alias(i)).\(ResolvedLevel.quoted(term.column)) AS o\(i)_\(j)")
                        columns.append("\(alias(i)).\(level.read(term.column)) AS r\(i)_\(j)")
                    } else {
                        // Typed NULLs, so every branch of the UNION has the same column types.
                        let type = level.column(term.column)?.type ?? "text"
                        let readsText = level.read(term.column).hasSuffix("::text")
                        columns.append("NULL::\(type) AS o\(i)_\(j)")
                        columns.append("NULL::\(readsText ? "text" : type) AS r\(i)_\(j)")
                    }
                }
            }
            // Up the chain from the row to its first-level ancestor.
            for i in stride(from: depth - 1, through: 0, by: -1) {
                guard let parent = levels[i + 1].parent else { break }
                joins += " JOIN \(levels[i].quotedTable) \(alias(i)) ON \(alias(i + 1)).\(ResolvedLevel.quoted(parent)) = \(alias(i)).\(ResolvedLevel.quoted(levels[i].key))"
            }
            var filter = "\(alias(depth)).\(ResolvedLevel.quoted(levels[depth].title)) ILIKE ?"
            if let parent = levels[0].parent { filter += " AND \(alias(0)).\(ResolvedLevel.quoted(parent)) IS NULL" }
            branches.append("SELECT \(columns.joined(separator: ", ")) FROM \(joins) WHERE \(filter)")
            arguments.append(pattern.databaseValue)
        }
        var order: [String] = []
        for (i, level) in levels.enumerated() {
            if i > 0 { order.append("(c.depth >= \(i))") }
            for (j, term) in level.order.enumerated() {
                order.append("c.o\(i)_\(j)" + (term.collation.map { " COLLATE \($0)" } ?? "") + (term.descending ? " DESC" : ""))
            }
        }
        let union = branches.joined(separator: " UNION ALL ")
        let reads = levels.indices.flatMap { i in levels[i].order.indices.map { "c.r\(i)_\($0)" } }
        let limit = Self.searchCandidateLimit
        let rows = try db.rows(
            "SELECT c.depth, c.title, \(reads.joined(separator: ", ")) FROM (\(union)) c ORDER BY \(order.joined(separator: ", ")) LIMIT \(limit + 1)",
            arguments)
        let candidates = rows.prefix(limit).map { row in
            let depth = Int(Int64.fromDatabaseValue(row[0]) ?? 0)
            var chain: [[DatabaseValue]] = []
            var k = 2
            for i in levels.indices {
                let n = levels[i].order.count
                if i <= depth { chain.append(Array(row[k ..< k + n])) }
                k += n
            }
            return Candidate(depth: depth, title: Self.text(row[1]), chain: chain)
        }
        guard rows.count > limit else { return (candidates, nil) }
        return (candidates, Int(try db.integer("SELECT COUNT(*) FROM (\(union)) c", arguments)))
    }

    func alias(_ depth: Int) -> String { "t\(depth)" }

    /// The node of `candidate`: level by level, its ancestor's place among its siblings (the rows
    /// before it by the level's order), checked against the row there; `nil` when the tables moved.
    func node(of candidate: Candidate) throws -> NodeID? {
        var parent = root
        var parentKey: DatabaseValue?
        for (i, values) in candidate.chain.enumerated() {
            let level = levels[i]
            let before = Keyset.comparison(level.order, values, after: false, dialect: level.dialect)
            let filter: [DatabaseValue] = level.filtersByParent ? [parentKey ?? .null] : []
            let position = Int(try access.read { db in
                try db.integer("SELECT COUNT(*) FROM \(level.quotedTable) WHERE \(level.parentFilter) AND \(before.sql)", filter + before.arguments)
            })
            let children = self.children(of: parent)
            guard position < children.count else { return nil }
            let id = children[position]
            guard let key = values.last, rowData(id)?.key == key else { return nil }
            parent = id
            parentKey = key
        }
        return parent
    }
}
