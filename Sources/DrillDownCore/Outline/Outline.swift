/// The tree shown inside one list (the outline): which nodes are expanded, and the exact mapping
/// between visible row numbers and nodes.
///
/// Every node that has an expanded child keeps a Fenwick tree over its children's row weights
/// (1 + the rows its expanded subtree shows): laid out in one flat array at the children's own
/// ids when they are a contiguous range (every level of an unedited document), in an array of
/// its own for a level that edits made non-contiguous. Expanding or collapsing updates one weight per visible ancestor; a row
/// lookup descends one Fenwick tree per level. Nothing walks the visible rows.
///
/// A collapsed node keeps its descendants' expanded state, so reopening it restores them.
///
/// Made from a ``Presenter``, the outline shows sorted levels in their display order
/// (``Presenter/order(of:)``): the Fenwick trees are kept by display position, and rows map to
/// nodes whose TreePaths still name their places in the data. Rows hidden from the presenter's
/// reader (``Presenter/access``) weigh nothing: they take no row, are never expanded, and their
/// levels always keep a Fenwick tree (the root's from the start, others' when expanded).
///
/// ```swift
/// var outline = Outline(source: source)
/// outline.expand(source.node(at: [1])!)
/// outline.visibleCount            // root's children + the rows under 1
/// outline.node(atRow: 2)          // the second child of 1
/// ```
public struct Outline: Sendable {
    /// The tree.
    public let source: any Source
    var expandedFlags: [Bool] = []
    var segmentReady: [Bool] = []
    var fenwick: [Int32] = []
    /// The Fenwick trees of non-contiguous levels (1-based), by parent.
    var spill: [NodeID: [Int32]] = [:]
    /// The display order of sorted levels (`nil`: every level in the data's order).
    let presenter: Presenter?

    /// An outline with everything collapsed, every level in the data's order.
    public init(source: any Source) {
        self.source = source
        presenter = nil
    }

    /// An outline with everything collapsed, showing sorted levels as `presenter` orders them.
    public init(presenter: Presenter) {
        source = presenter.source
        self.presenter = presenter
        prepareHidden(source.root)
    }

    /// Whether the reader may not reach `id` (always `false` without an access view hiding rows).
    func isHidden(_ id: NodeID) -> Bool {
        guard let access = presenter?.access, access.hidesRows, id != source.root else { return false }
        return !access.mayReach(source.path(of: id))
    }

    /// Which of `node`'s children show, by display position, when some are hidden from the
    /// reader; `nil` when all show.
    func listedMask(_ node: NodeID) -> [Bool]? {
        guard let presenter, let listed = presenter.listedIndices(of: node) else { return nil }
        var mask = [Bool](repeating: false, count: source.childCount(of: node))
        for index in listed { mask[displayPosition(node, index)] = true }
        return mask
    }

    /// Gives `node`'s level its Fenwick tree now when some of its rows are hidden, so that no
    /// lookup takes its rows for one row each.
    mutating func prepareHidden(_ node: NodeID) {
        guard presenter?.access?.hidesRows == true, source.childCount(of: node) > 0 else { return }
        prepareSegment(node)
    }

    /// The data index of the child shown at display `position` under `node`.
    func dataIndex(_ node: NodeID, _ position: Int) -> Int {
        presenter?.order(of: node)?.dataIndex(at: position) ?? position
    }

    /// The display position under `node` of its child at data index `index`.
    func displayPosition(_ node: NodeID, _ index: Int) -> Int {
        presenter?.order(of: node)?.displayPosition(of: index) ?? index
    }

    /// Sizes the per-node arrays to the source's capacity, which may grow as a lazy source
    /// (a database) reserves ids for the levels it visits.
    mutating func allocate() {
        let n = source.capacity
        guard expandedFlags.count < n else { return }
        let extra = n - expandedFlags.count
        expandedFlags.append(contentsOf: repeatElement(false, count: extra))
        segmentReady.append(contentsOf: repeatElement(false, count: extra))
        fenwick.append(contentsOf: repeatElement(0, count: extra))
    }

    /// Whether `id` is expanded. The root always is.
    /// - Complexity: O(1)
    public func isExpanded(_ id: NodeID) -> Bool {
        id == source.root || (id.index < expandedFlags.count && expandedFlags[id.index])
    }

    /// Whether `node`'s children have a Fenwick segment.
    func hasSegment(_ node: NodeID) -> Bool { node.index < segmentReady.count && segmentReady[node.index] }

    /// Whether `id` shows as a row: all its ancestors below the root are expanded.
    /// - Complexity: O(depth)
    public func isVisible(_ id: NodeID) -> Bool {
        guard id != source.root else { return false }
        var n = id
        while let p = source.parent(of: n) {
            if !isExpanded(p) { return false }
            n = p
        }
        return true
    }

    // MARK: Fenwick segments

    /// Runs `body` on the Fenwick tree of `node`'s children (`range`): a buffer and the offset
    /// of entry 0 in it (entry j, 1-based, is at `base + j`).
    func withSegment<R>(_ node: NodeID, _ range: NodeRange, _ body: (UnsafeBufferPointer<Int32>, Int) -> R) -> R {
        if range.isContiguous { return fenwick.withUnsafeBufferPointer { body($0, Int(range.lowerBound) - 1) } }
        return (spill[node] ?? []).withUnsafeBufferPointer { body($0, 0) }
    }

    /// Runs `body` on the mutable Fenwick tree of `node`'s children, as ``withSegment(_:_:_:)``.
    mutating func withMutableSegment<R>(_ node: NodeID, _ range: NodeRange, _ body: (UnsafeMutableBufferPointer<Int32>, Int) -> R) -> R {
        if range.isContiguous { return fenwick.withUnsafeMutableBufferPointer { body($0, Int(range.lowerBound) - 1) } }
        return spill[node, default: []].withUnsafeMutableBufferPointer { body($0, 0) }
    }

    /// Sum of the first `count` weights of `node`'s children (rows before child `count`).
    func prefix(_ node: NodeID, _ count: Int) -> Int {
        guard hasSegment(node) else { return count }
        return withSegment(node, source.children(of: node)) { fen, base in
            var sum = 0
            var j = count
            while j > 0 {
                sum += Int(fen[base + j])
                j &= j - 1
            }
            return sum
        }
    }

    /// The rows `node` shows below itself when expanded.
    func rows(below node: NodeID) -> Int { prefix(node, source.childCount(of: node)) }

    mutating func prepareSegment(_ node: NodeID) {
        allocate()
        guard !segmentReady[node.index] else { return }
        let range = source.children(of: node)
        if !range.isContiguous { spill[node] = [Int32](repeating: 0, count: range.count + 1) }
        let mask = listedMask(node)
        withMutableSegment(node, range) { fen, base in
            guard let mask else {
                for j in 1 ... range.count { fen[base + j] = Int32(j & -j) }
                return
            }
            for j in 1 ... range.count { fen[base + j] = mask[j - 1] ? 1 : 0 }
            for j in 1 ... range.count where j + (j & -j) <= range.count { fen[base + j + (j & -j)] += fen[base + j] }
        }
        segmentReady[node.index] = true
    }

    mutating func add(_ node: NodeID, child position: Int, _ delta: Int) {
        let range = source.children(of: node)
        withMutableSegment(node, range) { fen, base in
            var j = position + 1
            while j <= range.count {
                fen[base + j] += Int32(delta)
                j += j & -j
            }
        }
    }

    /// Applies a change of `delta` rows under `node` to every ancestor that shows it.
    mutating func propagate(from node: NodeID, _ delta: Int) {
        var x = node
        while let p = source.parent(of: x) {
            prepareSegment(p)
            add(p, child: displayPosition(p, source.children(of: p).position(of: x) ?? 0), delta)
            if p == source.root || !isExpanded(p) { return }
            x = p
        }
    }

    // MARK: Expanding and collapsing

    /// Expands `id` (no effect on leaves or already expanded nodes).
    /// - Complexity: O(depth × log width)
    public mutating func expand(_ id: NodeID) {
        guard id != source.root, source.childCount(of: id) > 0, !isHidden(id) else { return }
        allocate()
        guard !expandedFlags[id.index] else { return }
        prepareHidden(id)
        expandedFlags[id.index] = true
        propagate(from: id, rows(below: id))
    }

    /// Collapses `id`, keeping its descendants' state for when it reopens.
    /// - Complexity: O(depth × log width)
    public mutating func collapse(_ id: NodeID) {
        guard id != source.root, isExpanded(id) else { return }
        propagate(from: id, -rows(below: id))
        expandedFlags[id.index] = false
    }

    /// Expands a collapsed node, collapses an expanded one.
    public mutating func toggle(_ id: NodeID) {
        if isExpanded(id) { collapse(id) } else { expand(id) }
    }

    /// Expands every ancestor of `id` so that it shows as a row.
    /// - Complexity: O(depth² × log width)
    public mutating func reveal(_ id: NodeID) {
        for a in source.lineage(of: id).dropLast() where a != source.root { expand(a) }
    }

    /// Collapses everything.
    /// - Complexity: O(n)
    public mutating func collapseAll() {
        expandedFlags = []
        segmentReady = []
        fenwick = []
        spill = [:]
        prepareHidden(source.root)
    }

    /// Expands every node that has children (on a lazy source, this visits every level).
    /// - Complexity: O(n)
    public mutating func expandAll() {
        collapseAll()
        allocate()
        // Post-order without recursion: children's row counts are known before their parent's segment is built.
        var total = [Int32](repeating: 0, count: source.capacity)
        var stack: [(NodeID, Bool)] = [(source.root, false)]
        while let (n, done) = stack.popLast() {
            let range = source.children(of: n)
            if range.isEmpty { continue }
            let mask = listedMask(n)
            if !done {
                stack.append((n, true))
                for (k, c) in range.enumerated() where !source.children(of: c).isEmpty && mask.map({ $0[displayPosition(n, k)] }) ?? true {
                    stack.append((c, false))
                }
                continue
            }
            if total.count < source.capacity {
                allocate()
                total.append(contentsOf: repeatElement(0, count: fenwick.count - total.count))
            }
            let k = range.count
            var sum: Int32 = 0
            if !range.isContiguous { spill[n] = [Int32](repeating: 0, count: k + 1) }
            let order = presenter?.order(of: n)
            withMutableSegment(n, range) { fen, base in
                if range.isContiguous, order == nil, mask == nil {
                    for j in 1 ... k {
                        fen[base + j] = 1 + total[base + j]
                        sum += fen[base + j]
                    }
                } else {
                    for j in 1 ... k {
                        let shows = mask?[j - 1] ?? true
                        fen[base + j] = shows ? 1 + total[range[order?.dataIndex(at: j - 1) ?? j - 1].index] : 0
                        sum += fen[base + j]
                    }
                }
                for j in 1 ... k {
                    let up = j + (j & -j)
                    if up <= k { fen[base + up] += fen[base + j] }
                }
            }
            total[n.index] = sum
            segmentReady[n.index] = true
            if n != source.root { expandedFlags[n.index] = true }
        }
    }

    // MARK: Rows ⇄ nodes

    /// The number of visible rows.
    /// - Complexity: O(log width of the root level)
    public var visibleCount: Int { rows(below: source.root) }

    /// The node shown at `row`, or `nil` past the end.
    /// - Complexity: O(depth × log width)
    public func node(atRow row: Int) -> NodeID? {
        guard row >= 0 else { return nil }
        var n = source.root
        var r = row
        while true {
            let range = source.children(of: n)
            if !hasSegment(n) {
                return r < range.count ? range[dataIndex(n, r)] : nil
            }
            let k = range.count
            let (pos, rem) = withSegment(n, range) { fen, base in
                var pos = 0
                var rem = r
                var step = 1
                while step * 2 <= k { step *= 2 }
                while step > 0 {
                    if pos + step <= k, Int(fen[base + pos + step]) <= rem {
                        pos += step
                        rem -= Int(fen[base + pos])
                    }
                    step /= 2
                }
                return (pos, rem)
            }
            guard pos < k else { return nil }
            if rem == 0 { return range[dataIndex(n, pos)] }
            n = range[dataIndex(n, pos)]
            r = rem - 1
        }
    }

    /// The row at which `id` shows, or `nil` when an ancestor is collapsed.
    /// - Complexity: O(depth × log width)
    public func row(of id: NodeID) -> Int? {
        guard isVisible(id), !isHidden(id) else { return nil }
        let chain = source.lineage(of: id)
        var row = 0
        for level in 1 ..< chain.count {
            let parent = chain[level - 1]
            row += prefix(parent, displayPosition(parent, source.children(of: parent).position(of: chain[level]) ?? 0))
            if level < chain.count - 1 { row += 1 }
        }
        return row
    }

    /// The node at `row` with its depth (1 for the root's children), for indentation.
    public func entry(atRow row: Int) -> (id: NodeID, depth: Int)? {
        guard let id = node(atRow: row) else { return nil }
        return (id, source.depth(of: id))
    }

    /// The expanded nodes, in id order (for saving the state, e.g. in a URL).
    public var expandedNodes: [NodeID] {
        expandedFlags.indices.filter { expandedFlags[$0] }.map { NodeID($0) }
    }
}
