/// A title (and optionally value) search over a whole tree.
public struct SearchQuery: Sendable, Equatable {
    /// The text to find, as a case-insensitive substring (ASCII letters fold).
    public var text: String
    /// Whether attribute and leaf values are searched too, not only titles.
    public var includeValues: Bool
    /// The most hits to return (all are counted).
    public var limit: Int
    /// How many hits to skip before the ones returned: a page of hits starts here (they are
    /// still counted in the total).
    public var offset: Int
    /// The node whose descendants are searched; `nil` searches the whole tree. The node itself
    /// is not a hit.
    public var scope: NodeID?

    /// Creates a query. A negative `offset` counts as 0.
    public init(_ text: String, includeValues: Bool = false, limit: Int = 100, offset: Int = 0, in scope: NodeID? = nil) {
        self.text = text
        self.includeValues = includeValues
        self.limit = limit
        self.offset = max(0, offset)
        self.scope = scope
    }

    /// Whether the `total`-th hit found (counting from 1) is returned, when `returned` hits are kept so far.
    func keeps(_ total: Int, returned: Int) -> Bool { total > offset && returned < limit }
}

/// The outcome of a search: the first hits in document order and how many there are in all.
public struct SearchResult: Sendable, Equatable {
    /// Matching nodes in document order, at most the query's limit.
    public var hits: [NodeID]
    /// The number of matching nodes.
    public var total: Int

    /// Creates a result.
    public init(hits: [NodeID], total: Int) {
        self.hits = hits
        self.total = total
    }
}

/// A search stopped because its caller no longer wanted the answer (see ``Source/find(_:until:)``).
public struct SearchCancelled: Error, Sendable, Equatable {
    /// Creates the error.
    public init() {}
}

extension DocumentSource {
    /// Finds nodes whose title (or, with `includeValues`, a value) contains the query text.
    ///
    /// From the second title search of an unedited document on, it scans the folded titles of a
    /// ``SearchIndex`` (built then, see ``SearchIndexCache``); otherwise it walks the tree depth-first comparing raw UTF-8 bytes: no
    /// string is made per node. Nodes added by edits are found where they are; removed ones are
    /// not reached.
    /// - Complexity: O(n × query length)
    public func search(_ query: SearchQuery) -> SearchResult {
        (try? search(query, until: { false })) ?? SearchResult(hits: [], total: 0)
    }

    /// ``search(_:)`` that asks `isCancelled` every few thousand nodes (or 64 KiB of titles) and
    /// stops when it says so; `firstHits` as in ``Source/find(_:until:firstHits:)``.
    /// - Throws: ``SearchCancelled`` when `isCancelled` returned true.
    public func search(
        _ query: SearchQuery, until isCancelled: () -> Bool, firstHits: ([NodeID]) -> Void = { _ in }
    ) throws(SearchCancelled) -> SearchResult {
        let needle = Array(query.text.lowercased().utf8)
        guard !needle.isEmpty else { return SearchResult(hits: [], total: 0) }
        if !query.includeValues, query.scope == nil || query.scope == root, tree.isDense, !needle.contains(0), SearchIndex.fits(textBytes: tree.text.count),
            let index = searchCache.index(of: self)
        {
            guard let found = index.find(needle, limit: query.limit, offset: query.offset, isCancelled: isCancelled, firstHits: firstHits) else {
                throw SearchCancelled()
            }
            return found
        }
        return try walk(needle, query, isCancelled, firstHits)
    }

    /// Builds the title index now, so that even the first title search scans it: for a server
    /// whose users search as they type (a one-off search walks instead and never builds it).
    /// Does nothing for an edited tree or one too large for the index, which every search walks.
    /// - Complexity: O(n), once per document.
    public func prepareSearch() {
        guard tree.isDense, SearchIndex.fits(textBytes: tree.text.count) else { return }
        searchCache.prepare(self)
    }

    /// The search as a depth-first walk of the tree, for values and edited trees.
    func walk(
        _ needle: [UInt8], _ query: SearchQuery, _ isCancelled: () -> Bool, _ firstHits: ([NodeID]) -> Void = { _ in }
    ) throws(SearchCancelled) -> SearchResult {
        var hits: [NodeID] = []
        var total = 0
        let outline: Bool = if case .outline = mode { true } else { false }
        func contains(_ bytes: TextBytes) -> Bool {
            bytes.withUnsafeBufferPointer { Self.contains($0, 0, $0.count, needle) }
        }
        func matches(_ id: NodeID) -> Bool {
            if outline {
                if !tree.kind(of: id).isContainer { return contains(tree.valueBytes(of: id)) }
                if let t = tree.member(of: id, lowercasedKeys: titleKeys), contains(tree.valueBytes(of: t)) { return true }
                if query.includeValues {
                    for m in tree.children(of: id) where !tree.kind(of: m).isContainer && !isStructural(m, of: id) {
                        if contains(tree.valueBytes(of: m)) { return true }
                    }
                }
                return false
            }
            if contains(tree.keyBytes(of: id)) { return true }
            return query.includeValues && contains(tree.valueBytes(of: id))
        }
        // Depth first in document order; iterators walk a level run by run.
        var stack: [NodeRange.Iterator] = [children(of: query.scope ?? root).makeIterator()]
        var visited = 0
        while !stack.isEmpty {
            guard let id = stack[stack.count - 1].next() else {
                stack.removeLast()
                continue
            }
            visited &+= 1
            if visited & 4095 == 0, isCancelled() { throw SearchCancelled() }
            if matches(id) {
                total += 1
                if query.keeps(total, returned: hits.count) {
                    hits.append(id)
                    if hits.count == query.limit { firstHits(hits) }
                }
            }
            let sub = children(of: id)
            if !sub.isEmpty { stack.append(sub.makeIterator()) }
        }
        return SearchResult(hits: hits, total: total)
    }

    /// Whether `text[lo..<hi]` contains `needle` (already lowercased), folding ASCII case.
    package static func contains(_ text: UnsafeBufferPointer<UInt8>, _ lo: Int, _ hi: Int, _ needle: [UInt8]) -> Bool {
        let m = needle.count
        if hi - lo < m { return false }
        let first = needle[0]
        var i = lo
        let last = hi - m
        while i <= last {
            var b = text[i]
            if b >= 65 && b <= 90 { b |= 0x20 }
            if b == first {
                var j = 1
                while j < m {
                    var c = text[i + j]
                    if c >= 65 && c <= 90 { c |= 0x20 }
                    if c != needle[j] { break }
                    j += 1
                }
                if j == m { return true }
            }
            i += 1
        }
        return false
    }
}

extension Source {
    /// Finds nodes whose title (or a value) contains the query text, in document order.
    ///
    /// Uses the byte-level search of ``DocumentSource`` when the source is one.
    /// - Complexity: O(n × query length)
    public func find(_ query: SearchQuery) -> SearchResult {
        (try? find(query, until: { false })) ?? SearchResult(hits: [], total: 0)
    }

    /// ``find(_:)`` that asks `isCancelled` every few thousand nodes and stops when it says so:
    /// a server stops searching for a client that went away. `firstHits` gets the query's
    /// `limit` hits as soon as they are found, while the search goes on counting the rest (a
    /// server sends them then); it is not called when fewer are found.
    /// - Throws: ``SearchCancelled`` when `isCancelled` returned true.
    public func find(
        _ query: SearchQuery, until isCancelled: () -> Bool, firstHits: ([NodeID]) -> Void = { _ in }
    ) throws(SearchCancelled) -> SearchResult {
        if let document = self as? DocumentSource { return try document.search(query, until: isCancelled, firstHits: firstHits) }
        // A document with JSON text values: the document's own search, unless the scope is inside
        // an opened value (walked below). The text value itself is found by its text.
        if let view = self as? EmbeddedJSONSource, (query.scope?.index ?? 0) < view.base {
            return try view.document.search(query, until: isCancelled, firstHits: firstHits)
        }
        let needle = query.text.lowercased()
        guard !needle.isEmpty else { return SearchResult(hits: [], total: 0) }
        // An index answers whole-tree searches; it is asked for the hits up to the page's end.
        if query.scope == nil || query.scope == root, let indexed = self as? any IndexedSearch {
            var whole = query
            whole.offset = 0
            whole.limit = query.limit > Int.max - query.offset ? Int.max : query.offset + query.limit
            if let found = try indexed.indexedFind(whole, until: isCancelled) {
                let page = SearchResult(hits: Array(found.hits.dropFirst(query.offset)), total: found.total)
                if page.hits.count == query.limit { firstHits(page.hits) }
                return page
            }
        }
        var hits: [NodeID] = []
        var total = 0
        var visited = 0
        var stack: [NodeID] = children(of: query.scope ?? root).reversed()
        while let id = stack.popLast() {
            visited &+= 1
            if visited & 1023 == 0, isCancelled() { throw SearchCancelled() }
            if matches(id, needle: needle, includeValues: query.includeValues) {
                total += 1
                if query.keeps(total, returned: hits.count) {
                    hits.append(id)
                    if hits.count == query.limit { firstHits(hits) }
                }
            }
            stack.append(contentsOf: children(of: id).reversed())
        }
        return SearchResult(hits: hits, total: total)
    }

    /// Whether `id` is a hit: its title (or, with `includeValues`, its value or an attribute's)
    /// contains `needle`, which is lowercased.
    public func matches(_ id: NodeID, needle: String, includeValues: Bool) -> Bool {
        if title(of: id).lowercased().contains(needle) { return true }
        guard includeValues else { return false }
        return (value(of: id)?.text.lowercased().contains(needle) ?? false) || attributes(of: id).contains { $0.value.text.lowercased().contains(needle) }
    }
}

/// A source that can search through an index of its storage (a trigram index in PostgreSQL)
/// instead of walking every node; ``Source/find(_:until:firstHits:)`` asks it first.
public protocol IndexedSearch: Source {
    /// The hits of `query` found through the index, in document order (the first `limit` by
    /// storage order), or `nil` when this source has no index for it (the caller walks instead).
    func indexedFind(_ query: SearchQuery, until isCancelled: () -> Bool) throws(SearchCancelled) -> SearchResult?
}
