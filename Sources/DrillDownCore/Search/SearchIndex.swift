#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every searchable title of an unedited document, ASCII-folded and laid end to end in document
/// order, so a title search is one `memchr`-driven scan of a flat buffer instead of a tree walk.
///
/// Title `k` is `folded[starts[k] ..< starts[k + 1] - 1]`, followed by a 0 byte; `ids[k]` is its
/// node. Nodes whose title is empty (array elements in generic mode) are left out: they never
/// match. A needle holding a 0 byte is not searched here (it could match across titles).
///
/// Built once per document, on its second title search (see ``SearchIndexCache``); it costs
/// about 8 bytes per titled node plus the titles' bytes.
struct SearchIndex: Sendable {
    /// The folded titles, each followed by a 0 byte.
    let folded: [UInt8]
    /// Where each title starts in ``folded``; one more entry than ``ids`` (the end).
    let starts: [UInt32]
    /// The node of each title, in document order.
    let ids: [NodeID]
    /// How often each byte value occurs in ``folded``: the scan looks for the needle's rarest byte.
    let histogram: [Int]

    /// Bytes of memory the index holds.
    var bytes: Int { folded.count + starts.count * 4 + ids.count * 4 + histogram.count * 8 }

    /// Reads the titles of `source` in document order, the order ``DocumentSource/search(_:)`` walks.
    /// - Complexity: O(n), one walk.
    init(_ source: DocumentSource) {
        let tree = source.tree
        var folded: [UInt8] = []
        folded.reserveCapacity(tree.text.count / 2)
        var starts: [UInt32] = []
        var ids: [NodeID] = []
        var histogram = [Int](repeating: 0, count: 256)
        func add(_ id: NodeID, _ bytes: TextBytes) {
            guard !bytes.isEmpty else { return }
            starts.append(UInt32(truncatingIfNeeded: folded.count))
            ids.append(id)
            bytes.withUnsafeBufferPointer {
                for b in $0 {
                    let f = b >= 65 && b <= 90 ? b | 0x20 : b
                    folded.append(f)
                    histogram[Int(f)] += 1
                }
            }
            folded.append(0)
        }
        let outline: Bool = if case .outline = source.mode { true } else { false }
        var stack: [NodeRange.Iterator] = [source.children(of: source.root).makeIterator()]
        while !stack.isEmpty {
            guard let id = stack[stack.count - 1].next() else {
                stack.removeLast()
                continue
            }
            if outline {
                if !tree.kind(of: id).isContainer {
                    add(id, tree.valueBytes(of: id))
                } else if let t = tree.member(of: id, lowercasedKeys: source.titleKeys) {
                    add(id, tree.valueBytes(of: t))
                }
            } else {
                add(id, tree.keyBytes(of: id))
            }
            let sub = source.children(of: id)
            if !sub.isEmpty { stack.append(sub.makeIterator()) }
        }
        starts.append(UInt32(truncatingIfNeeded: folded.count))
        self.folded = folded
        self.starts = starts
        self.ids = ids
        self.histogram = histogram
    }

    /// Whether the index can hold a document whose folded titles take `bytes` bytes.
    static func fits(textBytes bytes: Int) -> Bool { bytes < Int(UInt32.max) / 2 }

    /// The `limit` nodes whose title contains `needle` (lowercased, non-empty, without 0 bytes)
    /// after the first `offset` such nodes, and how many there are; `nil` when `isCancelled`
    /// said so (asked every 64 KiB scanned).
    /// `firstHits` gets the `limit` hits as soon as they are found, while the rest are still counted.
    /// - Complexity: O(bytes + matches × log titles)
    func find(_ needle: [UInt8], limit: Int, offset: Int = 0, isCancelled: () -> Bool, firstHits: ([NodeID]) -> Void = { _ in }) -> SearchResult? {
        let m = needle.count
        // The needle's rarest byte (by this document's own counts) drives memchr.
        var rare = 0
        for j in 1 ..< m where histogram[Int(needle[j])] < histogram[Int(needle[rare])] { rare = j }
        let target = Int32(needle[rare])
        var hits: [NodeID] = []
        var total = 0
        var k = 0
        let count = folded.count
        return folded.withUnsafeBufferPointer { text -> SearchResult? in
            needle.withUnsafeBufferPointer { pattern -> SearchResult? in
                guard let base = text.baseAddress else { return SearchResult(hits: [], total: 0) }
                var pos = rare  // where the rare byte may be found next
                var checked = 0
                while pos < count {
                    if pos - checked >= 1 << 16 {
                        if isCancelled() { return nil }
                        checked = pos
                    }
                    // Look in bounded windows so cancellation is noticed in a long match-free run.
                    let window = min(count - pos, 1 << 16)
                    guard let hit = memchr(base + pos, target, window) else {
                        pos += window
                        continue
                    }
                    let p = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(hit))
                    let start = p - rare
                    if start + m <= count, memcmp(base + start, pattern.baseAddress!, m) == 0 {
                        k = entry(containing: start, from: k)
                        total += 1
                        if total > offset, hits.count < limit {
                            hits.append(ids[k])
                            if hits.count == limit { firstHits(hits) }
                        }
                        // One count per node: go on from the next title.
                        pos = Int(starts[k + 1]) + rare
                    } else {
                        pos = p + 1
                    }
                }
                return SearchResult(hits: hits, total: total)
            }
        }
    }

    /// The title that holds byte `offset`, searching forward from title `from` (gallop, then halve).
    func entry(containing offset: Int, from: Int) -> Int {
        var lo = from
        var step = 1
        var hi = from + 1
        let last = ids.count  // starts[last] is the end
        while hi < last, Int(starts[hi]) <= offset {
            lo = hi
            step <<= 1
            hi = min(last, hi + step)
        }
        // starts[lo] <= offset < starts[hi] (or hi == last)
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if Int(starts[mid]) <= offset { lo = mid } else { hi = mid }
        }
        return lo
    }
}
