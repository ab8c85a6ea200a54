import Foundation

/// What an edit changed or added in a ``TreeStore``: one immutable record per such node, in a
/// persistent hash trie (``RecordTrie``) that every later tree shares (a change copies
/// O(log32 records) trie nodes).
///
/// Base nodes (ids below ``baseCount``) that have a record are also marked in ``touched``, so a
/// read of an unchanged base node costs one bit test, not a trie lookup.
@usableFromInline final class TreeOverlay: Sendable {
    /// Changed and new nodes by raw id.
    @usableFromInline let records: RecordTrie
    /// Which base ids have a record.
    @usableFromInline let touched: TouchedSet
    /// The number of nodes in the base arrays.
    @usableFromInline let baseCount: Int32
    /// The next free id.
    @usableFromInline let capacity: Int32
    /// The number of nodes reachable from the root, less the subtrees of ``unsized``.
    let counted: Int
    /// Roots of subtrees removed without counting them (too large to count within a change):
    /// ``TreeStore/count`` then counts the tree once, when asked.
    let unsized: [Int32]
    /// The count found by that walk (only when ``unsized`` is not empty).
    let countCache: CountCache?
    /// How many splices made this overlay (an unedited tree is generation 0).
    let generation: Int
    /// An estimate of the memory the records take.
    let bytes: Int
    /// The ids each splice since the base wrote, latest first (see ``TreeStore/nodesWritten(since:)``).
    let log: OverlayLog

    init(records: RecordTrie, touched: TouchedSet, baseCount: Int32, capacity: Int32,
         counted: Int, unsized: [Int32], generation: Int, bytes: Int, log: OverlayLog) {
        self.records = records
        self.touched = touched
        self.baseCount = baseCount
        self.capacity = capacity
        self.counted = counted
        self.unsized = unsized
        countCache = unsized.isEmpty ? nil : CountCache()
        self.generation = generation
        self.bytes = bytes
        self.log = log
    }

    /// The record of `id`, or `nil` when it is an unchanged base node.
    @inlinable func record(_ id: Int32) -> StoredRecord? {
        guard id >= baseCount || touched.contains(id) else { return nil }
        return records[id]
    }
}

/// The ids one splice wrote, linked to the entry of the tree it was applied to: a persistent
/// list shared by every later tree, so two versions of one document can tell which records may
/// differ between them by walking back to their common version (``TreeStore/nodesWritten(since:)``).
///
/// The list is cut every ``segment`` entries (the entry after a cut has no `previous`), so it
/// stays small and is released without deep recursion; versions on either side of a cut are
/// then compared whole.
final class OverlayLog: Sendable {
    /// The entry of the tree the splice was applied to (`nil`: the base, or a cut).
    let previous: OverlayLog?
    /// The number of splices from the base to this one (the overlay's generation).
    let depth: Int
    /// The number of entries back to the base or the last cut, this one included.
    let length: Int
    /// The ids whose records the splice wrote.
    let ids: [Int32]
    /// The most entries between cuts.
    static let segment = 1024

    init(previous: OverlayLog?, ids: [Int32]) {
        depth = (previous?.depth ?? 0) + 1
        if let previous, previous.length < Self.segment {
            self.previous = previous
            length = previous.length + 1
        } else {
            self.previous = nil
            length = 1
        }
        self.ids = ids
    }
}

/// A count computed once, on first use, by any thread.
final class CountCache: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int?

    /// The count, computing it with `count` the first time.
    func value(_ count: () -> Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if let value { return value }
        let found = count()
        value = found
        return found
    }

    /// The count when it was computed.
    var known: Int? {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// A ``NodeRecord`` as the overlay's trie keeps it: boxed, so the path copy of a write retains
/// one reference per record in the copied trie nodes (not a record's three arrays through the
/// generic value witnesses), and a read of one field retains nothing but the box.
@usableFromInline final class StoredRecord: Sendable {
    /// The node's id (the trie's key).
    @usableFromInline let id: Int32
    @usableFromInline let kind: UInt8
    @usableFromInline let parent: Int32
    @usableFromInline let key: [UInt8]
    @usableFromInline let value: [UInt8]
    /// Its children when they differ from the base's (always set for new nodes).
    @usableFromInline let children: NodeRange?

    init(_ r: NodeRecord, id: Int32) {
        self.id = id
        kind = r.kind
        parent = r.parent
        key = r.key
        value = r.value
        children = r.children
    }

    /// The record, to change and write back.
    var record: NodeRecord { NodeRecord(kind: kind, parent: parent, key: key, value: value, children: children) }
}

/// One changed or new node: everything the base arrays hold for a node.
@usableFromInline struct NodeRecord: Sendable {
    @usableFromInline var kind: UInt8
    @usableFromInline var parent: Int32
    @usableFromInline var key: [UInt8]
    @usableFromInline var value: [UInt8]
    /// Its children when they differ from the base's (always set for new nodes).
    @usableFromInline var children: NodeRange?

    var bytes: Int { 72 + key.count + value.count + (children?.runs.map { $0.starts.count * 12 + 64 } ?? 0) }
}

/// A persistent set of base ids in two levels shared between versions: groups of 32 chunks of
/// 8 Ki bits (1 KiB each), so adding an id copies one 1 KiB chunk, one 32-entry group and the
/// (n / 256 Ki)-entry group table: 39 entries at 10M nodes, where one level of 64 Ki-bit chunks
/// copied an 8 KiB chunk and a 153-entry table (retaining each entry).
@usableFromInline struct TouchedSet: Sendable {
    @usableFromInline var groups: [[[UInt64]]] = []

    @inlinable func contains(_ id: Int32) -> Bool {
        let g = Int(id >> 18)
        guard g < groups.count else { return false }
        return groups[g].withUnsafeBufferPointer { chunks in
            guard !chunks.isEmpty else { return false }
            return chunks[Int(id >> 13) & 31].withUnsafeBufferPointer { words in
                guard !words.isEmpty else { return false }
                return words[Int(id & 0x1FFF) >> 6] & (1 << UInt64(id & 63)) != 0
            }
        }
    }

    mutating func insert(_ id: Int32) {
        let g = Int(id >> 18), c = Int(id >> 13) & 31
        if groups.count <= g { groups.append(contentsOf: repeatElement([], count: g + 1 - groups.count)) }
        if groups[g].isEmpty { groups[g] = [[UInt64]](repeating: [], count: 32) }
        if groups[g][c].isEmpty { groups[g][c] = [UInt64](repeating: 0, count: 128) }
        groups[g][c][Int(id & 0x1FFF) >> 6] |= 1 << UInt64(id & 63)
    }
}

/// Makes the next overlay from a tree: records to write, ids to allocate.
struct OverlayEditor {
    let tree: TreeStore
    var records: RecordTrie
    var touched: TouchedSet
    let baseCount: Int32
    var capacity: Int32
    /// The nodes reachable from the root, less the subtrees of `unsized`.
    var count: Int
    /// Roots of removed subtrees not yet counted (see ``TreeOverlay/unsized``).
    var unsized: [Int32]
    var bytes: Int
    /// The ids written by this edit, for the log.
    var written: [Int32] = []

    init(_ tree: TreeStore) {
        self.tree = tree
        written.reserveCapacity(4)
        baseCount = Int32(tree.kinds.count)
        if let o = tree.overlay {
            records = o.records
            touched = o.touched
            capacity = o.capacity
            if let known = o.countCache?.known {
                count = known
                unsized = []
            } else {
                count = o.counted
                unsized = o.unsized
            }
            bytes = o.bytes
        } else {
            records = RecordTrie()
            touched = TouchedSet()
            capacity = baseCount
            count = tree.kinds.count
            unsized = []
            bytes = 0
        }
    }

    /// The current record of `id` (its base data when it has none yet).
    func current(_ id: NodeID) -> NodeRecord {
        if id.rawValue >= baseCount || touched.contains(id.rawValue), let r = records[id.rawValue] { return r.record }
        return NodeRecord(
            kind: tree.kinds[id.index] & TreeStore.kindBits, parent: tree.parents[id.index], key: Array(tree.keyBytes(of: id)),
            value: Array(tree.valueBytes(of: id)), children: nil)
    }

    mutating func write(_ id: Int32, _ record: NodeRecord) {
        // A base id is in `touched` exactly when it has a record: no trie lookup needed.
        if id < baseCount, !touched.contains(id) { touched.insert(id) }
        bytes += record.bytes
        records.set(StoredRecord(record, id: id))
        written.append(id)
    }

    func build() -> TreeStore {
        var result = tree
        let log = OverlayLog(previous: tree.overlay?.log, ids: written)
        result.overlay = TreeOverlay(
            records: records, touched: touched, baseCount: baseCount, capacity: capacity, counted: count,
            unsized: unsized, generation: log.depth, bytes: bytes + 48 + written.count * 4, log: log)
        return result
    }
}
