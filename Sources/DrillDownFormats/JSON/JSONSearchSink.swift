import DrillDownCore

/// A search of a whole JSON text in one pass, by ``LazyJSONSource``'s rule (see
/// ``LazyJSONSource/matches(key:value:inObject:needle:includeValues:)``): stage 2
/// (``JSONIndexedParser/parse(_:_:_:_:)``) feeds it in place of the store, and it keeps only
/// the hits. The file is scanned once whatever its depth; the level-by-level walk scans each
/// container again for every level that encloses it.
///
/// Nodes are decided as their containers close. An outline row's title and children members may
/// come in any order and the best-ranked key wins, so hits below a children array wait in that
/// array's frame until the row closes and it is known to be the row's children; the row's own hit
/// is put before them. The first `limit` paths in document order and the total are kept.
struct JSONSearchSink: JSONValueSink {
    /// Hits below one node: how many, and the first paths (relative to that node) in document order.
    struct Hits {
        var total = 0
        var paths: [[Int]] = []

        mutating func add(_ path: [Int], limit: Int) {
            total += 1
            if paths.count < limit { paths.append(path) }
        }

        /// Adds the hits below child `index` (`nil`: below this node itself).
        mutating func add(_ sub: Hits, under index: Int?, limit: Int) {
            total += sub.total
            for path in sub.paths where paths.count < limit { paths.append(index.map { [$0] + path } ?? path) }
        }
    }

    /// What the children of an open container are.
    enum Role {
        /// Nodes: a container's children in generic mode, a list of rows in an outline.
        case nodes
        /// Members of an outline row (an object): its title, its children list, attributes.
        case row
        /// Elements of an outline row that is an array: its attributes.
        case arrayRow
        /// Members of the outline root object: the rows list among them.
        case root
        /// Nothing searched (inside an attribute's value).
        case skip
    }

    struct Frame {
        let role: Role
        let isObject: Bool
        /// The container's node: its index among its parent's children.
        let index: Int
        /// For a candidate list of rows: the rank of its key among the children (or rows) keys.
        var candidateRank = -1
        /// The next child's index (``Role/nodes``).
        var next = 0
        /// The hits below: of a list of nodes, its nodes'; of a row (or the outline root), those
        /// of the list under its best-ranked children (or rows) key so far.
        var hits = Hits()
        // Rows and the root: the best title and children keys so far, what they hold.
        var titleRank = Int.max
        var titleHit = false
        var attributeHit = false
        var childRank = Int.max
    }

    /// Text of the current key or value: a range of the input, or decoded bytes.
    struct Capture {
        var start = 0
        var count = 0
        var decoded = false
        var bytes: [UInt8] = []

        mutating func reset() {
            count = 0
            decoded = false
        }

        mutating func append(_ input: JSONInput, _ start: Int, _ n: Int) {
            if !decoded && count == 0 {
                self.start = start
                count = n
            } else {
                append(input.base + start, n, input)
            }
        }

        mutating func append(_ p: UnsafePointer<UInt8>, _ n: Int, _ input: JSONInput) {
            if !decoded {
                decoded = true
                bytes.removeAll(keepingCapacity: true)
                bytes.append(contentsOf: UnsafeBufferPointer(start: input.base + start, count: count))
            }
            bytes.append(contentsOf: UnsafeBufferPointer(start: p, count: n))
        }

        func with<R>(_ input: JSONInput, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            decoded ? bytes.withUnsafeBufferPointer(body) : body(UnsafeBufferPointer(start: input.base + start, count: count))
        }
    }

    let input: JSONInput
    let needle: [UInt8]
    let includeValues: Bool
    let limit: Int
    /// `nil` in generic mode.
    let outlineKeys: (title: [[UInt8]], children: [[UInt8]], rows: [[UInt8]], structural: [[UInt8]])?
    let isCancelled: () -> Bool
    private(set) var cancelled = false
    /// The hits below the root, once the root has closed.
    private(set) var result = Hits()
    private var stack: [Frame] = []
    private var key = Capture()
    private var value = Capture()
    private var inKey = false
    private var nodes = 0

    init(
        input: JSONInput, needle: [UInt8], includeValues: Bool, limit: Int,
        outlineKeys: (title: [[UInt8]], children: [[UInt8]], rows: [[UInt8]], structural: [[UInt8]])?, isCancelled: @escaping () -> Bool
    ) {
        self.input = input
        self.needle = needle
        self.includeValues = includeValues
        self.limit = limit
        self.outlineKeys = outlineKeys
        self.isCancelled = isCancelled
    }

    // MARK: Stage 2's calls

    mutating func beginNode() {
        key.reset()
        value.reset()
        inKey = true
        nodes &+= 1
        if nodes & 4095 == 0, isCancelled() { cancelled = true }
    }

    mutating func endKey() { inKey = false }

    func willAppendDecoded() -> Bool { true }

    mutating func appendText(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        if inKey { key.append(bytes, count, input) } else { value.append(bytes, count, input) }
        return !cancelled
    }

    mutating func appendInput(_ input: JSONInput, _ start: Int, _ n: Int) -> Bool {
        if inKey { key.append(input, start, n) } else { value.append(input, start, n) }
        return !cancelled
    }

    mutating func finishScalar(_ kind: ValueKind) { node(kind) }

    mutating func openContainer(_ kind: ValueKind) { node(kind) }

    mutating func closeContainer() {
        let frame = stack.removeLast()
        let generic = outlineKeys == nil
        switch frame.role {
        case .nodes:
            if stack.isEmpty {
                result = frame.hits
            } else if generic {
                stack[stack.count - 1].hits.add(frame.hits, under: frame.index, limit: limit)
            } else if stack[stack.count - 1].childRank == frame.candidateRank {
                stack[stack.count - 1].hits = frame.hits
            }
        case .row:
            var sub = Hits()
            if frame.titleHit || (includeValues && frame.attributeHit) { sub.add([], limit: limit) }
            sub.add(frame.hits, under: nil, limit: limit)
            stack[stack.count - 1].hits.add(sub, under: frame.index, limit: limit)
        case .arrayRow:
            if includeValues && frame.attributeHit { stack[stack.count - 1].hits.add([frame.index], limit: limit) }
        case .root:
            result = frame.hits
        case .skip:
            break
        }
    }

    // MARK: Nodes

    /// Whether the current value's text holds the needle.
    private func valueHolds() -> Bool { value.with(input) { DocumentSource.contains($0, 0, $0.count, needle) } }

    /// The rank of the current key among `keys` below `limit`.
    private func keyRank(_ keys: [[UInt8]], below limit: Int) -> Int? {
        key.with(input) { TreeStore.rank(of: $0, in: keys, below: Swift.min(limit, keys.count)) }
    }

    /// A value of `kind` starts (a container) or ended (a scalar), with ``key`` and ``value`` read.
    private mutating func node(_ kind: ValueKind) {
        let isContainer = kind == .object || kind == .array
        func push(_ role: Role, index: Int = -1, candidateRank: Int = -1) {
            stack.append(Frame(role: role, isObject: kind == .object, index: index, candidateRank: candidateRank))
        }
        guard let top = stack.indices.last else {
            // The root: not a node itself.
            guard isContainer else { return }
            if outlineKeys == nil || kind == .array { push(.nodes) } else { push(.root) }
            return
        }
        guard let keys = outlineKeys else {
            let index = stack[top].next
            stack[top].next += 1
            let hit =
                (stack[top].isObject && key.with(input) { DocumentSource.contains($0, 0, $0.count, needle) })
                || (includeValues && !isContainer && valueHolds())
            if hit { stack[top].hits.add([index], limit: limit) }
            if isContainer { push(.nodes, index: index) }
            return
        }
        switch stack[top].role {
        case .nodes:
            let index = stack[top].next
            stack[top].next += 1
            switch kind {
            case .object: push(.row, index: index)
            case .array: push(.arrayRow, index: index)
            default: if valueHolds() { stack[top].hits.add([index], limit: limit) }
            }
        case .row:
            if let rank = keyRank(keys.title, below: stack[top].titleRank) {
                stack[top].titleRank = rank
                stack[top].titleHit = !isContainer && valueHolds()
            }
            if let rank = keyRank(keys.children, below: stack[top].childRank) {
                stack[top].childRank = rank
                stack[top].hits = Hits()
                if kind == .array { return push(.nodes, candidateRank: rank) }
            } else if includeValues, !isContainer, !stack[top].attributeHit, keyRank(keys.structural, below: keys.structural.count) == nil {
                stack[top].attributeHit = valueHolds()
            }
            if isContainer { push(.skip) }
        case .root:
            if let rank = keyRank(keys.rows, below: stack[top].childRank) {
                stack[top].childRank = rank
                stack[top].hits = Hits()
                if kind == .array { return push(.nodes, candidateRank: rank) }
            }
            if isContainer { push(.skip) }
        case .arrayRow:
            if isContainer { return push(.skip) }
            if includeValues, !stack[top].attributeHit { stack[top].attributeHit = valueHolds() }
        case .skip:
            if isContainer { push(.skip) }
        }
    }
}
