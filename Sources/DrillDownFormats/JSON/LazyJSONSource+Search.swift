import DrillDownCore

extension LazyJSONSource: IndexedSearch {
    /// Finds nodes whose title (or a value) contains the query text by reading the file once,
    /// with the full read's two stages feeding a search that keeps only its hits
    /// (``JSONSearchSink``), so a search of a huge file costs one scan, not memory. Only the hits
    /// returned get ids (their levels are indexed as if visited). A file that is not valid JSON
    /// is walked level by level instead (``levelFind(_:_:until:)``), which reports each error
    /// with its line and column as the visit of that level would.
    /// - Complexity: O(file size).
    public func indexedFind(_ query: SearchQuery, until isCancelled: () -> Bool) throws(SearchCancelled) -> SearchResult? {
        let needle = Array(query.text.lowercased().utf8)
        guard !needle.isEmpty else { return SearchResult(hits: [], total: 0) }
        if let found = try streamingFind(needle, query, until: isCancelled) { return found }
        return try levelFind(needle, query, until: isCancelled)
    }

    /// The search in one pass (see ``indexedFind(_:until:)``), or `nil` when the file is not
    /// valid JSON, is too large for the structural index (4 GiB) or changed while it was read.
    func streamingFind(_ needle: [UInt8], _ query: SearchQuery, until isCancelled: () -> Bool) throws(SearchCancelled) -> SearchResult? {
        let raw = mapping.bytes
        guard let base = raw.baseAddress else { return nil }
        let keys: (title: [[UInt8]], children: [[UInt8]], rows: [[UInt8]], structural: [[UInt8]])? =
            if case .outline = mode { (titleKeys, childKeys, rowKeys, structuralKeys) } else { nil }
        // The sink holds the closure only while the walk runs.
        let (valid, cancelled, found) = withoutActuallyEscaping(isCancelled) { isCancelled in
            var sink = JSONSearchSink(
                input: JSONInput(base: base, count: raw.count), needle: needle, includeValues: query.includeValues, limit: query.limit,
                outlineKeys: keys, isCancelled: isCancelled)
            let valid = JSONIndexedParser.walk(raw, into: &sink)
            return (valid, sink.cancelled, sink.result)
        }
        if cancelled { throw SearchCancelled() }
        guard valid, !mapping.isDamaged else { return nil }
        let hits = found.paths.compactMap { node(at: TreePath($0)) }
        return SearchResult(hits: hits, total: found.total)
    }

    /// The search as a walk of the file level by level: each level on the way is scanned and
    /// checked (its errors recorded) and dropped after it, only those on the current path held.
    /// - Complexity: O(file size × depth) bytes scanned.
    func levelFind(_ needle: [UInt8], _ query: SearchQuery, until isCancelled: () -> Bool) throws(SearchCancelled) -> SearchResult? {
        struct Frame {
            let level: JSONLevel
            /// Brackets around the level's container, its own included.
            let depth: Int
            var next = 0
        }
        var paths: [[Int]] = []
        var total = 0
        var visited = 0
        var path: [Int] = []
        var stack: [Frame] = []
        let top = children(of: root)
        guard !top.isEmpty, let topLevel = state.locked({ state.levelOfOwner[0].map { state.levels[Int($0)] } }) else {
            return SearchResult(hits: [], total: 0)
        }
        stack.append(Frame(level: topLevel.scan, depth: topLevel.depth))
        while !stack.isEmpty {
            let k = stack.count - 1
            let level = stack[k].level
            let i = stack[k].next
            guard i < level.count else {
                stack.removeLast()
                if !path.isEmpty { path.removeLast() }
                continue
            }
            stack[k].next = i + 1
            visited &+= 1
            if visited & 1023 == 0, isCancelled() { throw SearchCancelled() }
            let (key, value) = child(level, i)
            if matches(key: key, value: value, inObject: level.isObject, needle: needle, includeValues: query.includeValues) {
                total += 1
                if paths.count < query.limit { paths.append(path + [i]) }
            }
            do throws(ParseFailure) {
                guard let container = try childContainer(at: value, isRoot: false) else { continue }
                let depth = try Self.depth(of: container, value: value, enclosing: stack[k].depth)
                let inner = try checkedScan(container)
                guard inner.count > 0 else { continue }
                stack.append(Frame(level: inner, depth: depth))
                path.append(i)
            } catch {
                recordFailure(error)
            }
        }
        let hits = paths.compactMap { node(at: TreePath($0)) }
        return SearchResult(hits: hits, total: total)
    }

    /// Whether the node with these offsets is a hit, by ``DocumentSource``'s rule: in an outline
    /// its title's bytes (a scalar row's value, else its title member's) or, with values, a
    /// scalar attribute's; generically its key or, with values, its scalar value; ASCII case folded.
    func matches(key: Int?, value: Int, inObject: Bool, needle: [UInt8], includeValues: Bool) -> Bool {
        /// Whether the text of the scalar at `offset` holds the needle (read in place, not copied).
        func holds(at offset: Int) -> Bool {
            guard let kind = bytes.roughKind(at: offset), !kind.isContainer else { return false }
            do { return try bytes.withText(ofScalarAt: offset) { Self.contains($0, needle) } } catch {
                recordFailure(error)
                return false
            }
        }
        guard case .outline = mode else {
            if inObject, let key, (try? bytes.withMember(at: key, afterComma: false) { k, _ in Self.contains(k, needle) }) == true { return true }
            return includeValues && holds(at: value)
        }
        guard bytes.roughKind(at: value)?.isContainer == true else { return holds(at: value) }
        do throws(ParseFailure) {
            if let t = try member(of: value, keys: titleKeys), holds(at: t) { return true }
            guard includeValues else { return false }
            if bytes.roughKind(at: value) == .array {
                // An array row's elements are its members here, as in the store.
                let level = try checkedScan(value)
                return (0 ..< level.count).contains { holds(at: childStart(level, $0)) }
            }
            var found = false
            try members(of: value) { key, offset in
                if bytes.roughKind(at: offset)?.isContainer == false, !isStructural(key, isRoot: false), holds(at: offset) {
                    found = true
                }
                return !found
            }
            return found
        } catch {
            recordFailure(error)
            return false
        }
    }

    /// Whether `text` contains `needle` (lowercased), folding ASCII case: the document walk's rule.
    static func contains(_ text: UnsafeBufferPointer<UInt8>, _ needle: [UInt8]) -> Bool {
        DocumentSource.contains(text, 0, text.count, needle)
    }
}
