import DrillDownCore

extension LazyJSONSource: IndexedSearch {
    /// Finds nodes whose title (or a value) contains the query text by walking the file: each
    /// level on the way is scanned for the walk and dropped after it (only the levels on the
    /// current path are held), so a search of a huge file costs time, not memory. Only the hits
    /// returned get ids (their levels are indexed as if visited).
    /// - Complexity: O(file size × depth) bytes scanned.
    public func indexedFind(_ query: SearchQuery, until isCancelled: () -> Bool) throws(SearchCancelled) -> SearchResult? {
        let needle = Array(query.text.lowercased().utf8)
        guard !needle.isEmpty else { return SearchResult(hits: [], total: 0) }
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
