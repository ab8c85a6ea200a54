/// The integer identity of a node inside one ``Source``.
///
/// Ids are below `source.capacity`, so per-node side tables are plain arrays. A freshly read
/// document's ids are dense and its siblings contiguous; an edited one's are not (see ``NodeRange``).
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The raw index into the source's flat arrays.
    public var rawValue: Int32

    /// Creates an id from a raw index.
    @inlinable public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// Creates an id from an `Int` index.
    @inlinable public init(_ index: Int) { self.rawValue = Int32(truncatingIfNeeded: index) }

    /// The id as an array index.
    @inlinable public var index: Int { Int(rawValue) }

    public static func < (lhs: NodeID, rhs: NodeID) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "#\(rawValue)" }
}

/// The children of one node, in document order.
///
/// Usually a contiguous id range (`lowerBound ..< upperBound`), which is all a freshly read
/// document has. After edits a level may be a list of runs of consecutive ids
/// (``isContiguous`` is then false, `lowerBound` is 0 and `upperBound` the count): indexing and
/// ``position(of:)`` are then O(log runs), and a level has at most one run more than twice the
/// number of changes made to it.
public struct NodeRange: RandomAccessCollection, Sendable, Equatable {
    /// The first child's raw id (contiguous ranges; 0 otherwise).
    public var lowerBound: Int32
    /// One past the last child's raw id (contiguous ranges; the count otherwise).
    public var upperBound: Int32
    /// The runs of a non-contiguous level, `nil` for a contiguous range.
    @usableFromInline var runs: ChildRuns?

    /// Creates a contiguous range of ids.
    @inlinable public init(_ lowerBound: Int32, _ upperBound: Int32) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
        runs = nil
    }

    @usableFromInline init(runs: ChildRuns) {
        lowerBound = 0
        upperBound = runs.count
        self.runs = runs
    }

    /// An empty range.
    public static let empty = NodeRange(0, 0)

    /// Whether the ids are one contiguous range (`lowerBound ..< upperBound`).
    @inlinable public var isContiguous: Bool { runs == nil }

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { Int(upperBound - lowerBound) }
    @inlinable public subscript(position: Int) -> NodeID {
        if let runs { return NodeID(runs.id(at: Int32(position))) }
        return NodeID(lowerBound + Int32(position))
    }

    /// The position of `id` inside this range, if it is one of these siblings.
    @inlinable public func position(of id: NodeID) -> Int? {
        if let runs { return runs.position(of: id.rawValue).map(Int.init) }
        return id.rawValue >= lowerBound && id.rawValue < upperBound ? Int(id.rawValue - lowerBound) : nil
    }

    /// Iterates run by run (no search per element).
    public struct Iterator: IteratorProtocol, Sendable {
        @usableFromInline let range: NodeRange
        @usableFromInline var run = 0
        @usableFromInline var cursor: Int32
        @usableFromInline var end: Int32

        @inlinable init(_ range: NodeRange) {
            self.range = range
            if let runs = range.runs {
                cursor = runs.starts[0]
                end = cursor + runs.length(0)
            } else {
                cursor = range.lowerBound
                end = range.upperBound
            }
        }

        @inlinable public mutating func next() -> NodeID? {
            if cursor < end {
                defer { cursor += 1 }
                return NodeID(cursor)
            }
            guard let runs = range.runs, run + 1 < runs.starts.count else { return nil }
            run += 1
            cursor = runs.starts[run] + 1
            end = runs.starts[run] + runs.length(run)
            return NodeID(cursor - 1)
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(self) }

    public static func == (a: NodeRange, b: NodeRange) -> Bool {
        switch (a.runs, b.runs) {
        case (nil, nil): return a.lowerBound == b.lowerBound && a.upperBound == b.upperBound
        case (let x?, let y?): return x === y || (x.starts == y.starts && x.offsets == y.offsets)
        default: return a.elementsEqual(b)
        }
    }

    /// These children with those at `positions` replaced by `ids`.
    /// - Complexity: O(runs + ids.count)
    func replacing(_ positions: Range<Int>, with ids: [Int32]) -> NodeRange {
        // The new runs as first ids and prefix counts (what ``ChildRuns`` keeps), built directly:
        // no lengths array to turn into offsets afterwards.
        var starts: [Int32] = [], offsets: [Int32] = [0]
        var total: Int32 = 0
        var next: Int32 = -1  // the id that continues the last run
        func add(_ start: Int32, _ length: Int32) {
            guard length > 0 else { return }
            total += length
            if start == next {
                offsets[offsets.count - 1] = total
            } else {
                starts.append(start)
                offsets.append(total)
            }
            next = start + length
        }
        let lo = Int32(positions.lowerBound), hi = Int32(positions.upperBound)
        guard let runs else {
            // At most the run before, one per id and the run after: no growth while adding.
            starts.reserveCapacity(ids.count + 2)
            offsets.reserveCapacity(ids.count + 3)
            add(lowerBound, lo)
            for id in ids { add(id, 1) }
            add(lowerBound + hi, upperBound - lowerBound - hi)
            return Self.make(starts, offsets)
        }
        // Runs wholly before and after the replaced positions are kept; the middle is rebuilt.
        let first = lo < runs.count ? runs.run(containing: lo) : runs.starts.count
        let last = hi < runs.count ? runs.run(containing: hi) : runs.starts.count
        starts.reserveCapacity(runs.starts.count + ids.count + 2)
        offsets.reserveCapacity(runs.starts.count + ids.count + 3)
        if first > 0 {
            starts.append(contentsOf: runs.starts[0 ..< first])
            offsets.append(contentsOf: runs.offsets[1 ... first])
            total = runs.offsets[first]
            next = runs.starts[first - 1] + runs.length(first - 1)
        }
        if first < runs.starts.count { add(runs.starts[first], lo - runs.offsets[first]) }
        for id in ids { add(id, 1) }
        if last < runs.starts.count {
            let skip = hi - runs.offsets[last]
            add(runs.starts[last] + skip, runs.length(last) - skip)
            for r in last + 1 ..< runs.starts.count { add(runs.starts[r], runs.length(r)) }
        }
        return Self.make(starts, offsets)
    }

    /// A range of the runs `starts` with prefix counts `offsets` (one more entry than `starts`, from 0).
    static func make(_ starts: [Int32], _ offsets: [Int32]) -> NodeRange {
        if starts.isEmpty { return .empty }
        if starts.count == 1 { return NodeRange(starts[0], starts[0] + offsets[1]) }
        return NodeRange(runs: ChildRuns(starts: starts, offsets: offsets))
    }
}

/// The ids of a non-contiguous level as runs of consecutive ids, with what finds a position
/// (by prefix counts) and an id (by runs sorted by first id) in O(log runs).
@usableFromInline final class ChildRuns: Sendable {
    /// The first id of each run, in document order.
    @usableFromInline let starts: [Int32]
    /// The position of each run's first id; one more entry holds the count.
    @usableFromInline let offsets: [Int32]
    /// Run indices ordered by their first id.
    @usableFromInline let byStart: [Int32]

    /// - Parameters:
    ///   - starts: the first id of each run, in document order (at least one run).
    ///   - offsets: the position of each run's first id, then the count.
    init(starts: [Int32], offsets: [Int32]) {
        self.starts = starts
        self.offsets = offsets
        let n = starts.count
        if n <= 64 {
            // Runs are few (at most 2 × changes to the level + 1) and mostly ascending already:
            // an insertion sort of run indices, in place, with no key array to allocate.
            var order = [Int32](unsafeUninitializedCapacity: n) { buffer, count in
                for i in 0 ..< n { buffer[i] = Int32(i) }
                count = n
            }
            order.withUnsafeMutableBufferPointer { o in
                starts.withUnsafeBufferPointer { s in
                    for i in 1 ..< max(n, 1) {
                        let x = o[i], key = s[Int(x)]
                        var j = i
                        while j > 0, s[Int(o[j - 1])] > key {
                            o[j] = o[j - 1]
                            j -= 1
                        }
                        o[j] = x
                    }
                }
            }
            byStart = order
            return
        }
        // Many runs: the standard library's merge sort finds the ascending stretches in near-linear time.
        var keys = [UInt64](unsafeUninitializedCapacity: n) { buffer, count in
            for i in starts.indices { buffer[i] = UInt64(UInt32(bitPattern: starts[i])) << 32 | UInt64(i) }
            count = n
        }
        keys.sort()
        byStart = keys.map { Int32(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
    }

    @usableFromInline var count: Int32 { offsets[offsets.count - 1] }

    @inlinable func length(_ run: Int) -> Int32 { offsets[run + 1] - offsets[run] }

    /// The run that holds position `p` (0 ≤ p < count).
    @inlinable func run(containing p: Int32) -> Int {
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) >> 1
            if offsets[mid] <= p { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    @inlinable func id(at p: Int32) -> Int32 {
        let r = run(containing: p)
        return starts[r] + (p - offsets[r])
    }

    @inlinable func position(of id: Int32) -> Int32? {
        var lo = 0, hi = byStart.count - 1
        guard starts[Int(byStart[0])] <= id else { return nil }
        while lo < hi {
            let mid = (lo + hi + 1) >> 1
            if starts[Int(byStart[mid])] <= id { lo = mid } else { hi = mid - 1 }
        }
        let r = Int(byStart[lo])
        let d = id - starts[r]
        return d < length(r) ? offsets[r] + d : nil
    }
}
