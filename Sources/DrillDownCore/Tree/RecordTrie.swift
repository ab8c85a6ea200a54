/// The overlay's records by node id: a persistent hash array mapped trie (32 slots a node, the
/// id's own bits as the hash, five a level from the lowest), written for this one key and value
/// type.
///
/// Versions share every node a write did not touch: a write copies the nodes on its id's path
/// (about log32 of the records) unless this version owns them alone, as it does after its first
/// write to them, and then changes them in place. A node is one allocation (its slots are
/// tail-allocated), and copying it retains its slots directly; the generic trie this replaced
/// (swift-collections' `TreeDictionary`) copied each slot through the runtime's value witnesses
/// and was a quarter of a change's instructions.
///
/// ```swift
/// var trie = RecordTrie()
/// trie.set(StoredRecord(record, id: 7))
/// let kept = trie                  // a snapshot: O(1)
/// trie.set(StoredRecord(other, id: 7))
/// kept[7]                          // still the first record
/// ```
///
/// Sendable because a node is changed only while no other version (and so no other thread) can
/// reach it; every node another version shares is immutable.
@usableFromInline struct RecordTrie: @unchecked Sendable {
    @usableFromInline var root: TrieNode?
    /// The number of records.
    @usableFromInline private(set) var count = 0

    @usableFromInline init() {}

    /// The record of `id`, or `nil`.
    /// - Complexity: O(log32 records)
    @inlinable subscript(id: Int32) -> StoredRecord? {
        guard let root else { return nil }
        // Down the levels without retaining each node (the root, held by this trie, keeps them alive).
        var node = Unmanaged.passUnretained(root)
        var key = UInt32(bitPattern: id)
        while true {
            let bit: UInt32 = 1 << (key & 31)
            let header = node._withUnsafeGuaranteedRef { $0.bitmaps }
            guard header.bitmap & bit != 0 else { return nil }
            let index = (header.bitmap & (bit &- 1)).nonzeroBitCount
            let entry = node._withUnsafeGuaranteedRef { $0.slot(index) }
            if header.itemMap & bit != 0 {
                let record = unsafeBitCast(entry, to: Unmanaged<StoredRecord>.self)
                return record._withUnsafeGuaranteedRef { $0.id } == id ? record.takeUnretainedValue() : nil
            }
            node = unsafeBitCast(entry, to: Unmanaged<TrieNode>.self)
            key >>= 5
        }
    }

    /// Sets the record of its id (``StoredRecord/id``), replacing any record it had.
    /// - Complexity: O(log32 records); the nodes this trie shares with other versions are copied.
    mutating func set(_ record: StoredRecord) {
        guard root != nil else {
            root = TrieNode.make(bitmap: 1 << (UInt32(bitPattern: record.id) & 31), itemMap: 1 << (UInt32(bitPattern: record.id) & 31)) {
                $0.initialize(to: record)
            }
            count = 1
            return
        }
        let unique = isKnownUniquelyReferenced(&root)
        var added = false
        let updated = TrieNode.setting(record, in: root!, shift: 0, unique: unique, added: &added)
        if updated !== root { root = updated }
        if added { count += 1 }
    }
}

/// The bitmaps of a ``TrieNode``: which of its 32 slots are used, and which of those hold a
/// record (the rest hold a child node).
@usableFromInline struct TrieHeader {
    @usableFromInline var bitmap: UInt32
    @usableFromInline var itemMap: UInt32

    @inlinable init(bitmap: UInt32, itemMap: UInt32) {
        self.bitmap = bitmap
        self.itemMap = itemMap
    }
}

/// One node of a ``RecordTrie``: its used slots, in slot order, each a ``StoredRecord`` or a
/// child ``TrieNode``. Only a node no other version refers to is ever changed in place.
@usableFromInline final class TrieNode: ManagedBuffer<TrieHeader, AnyObject> {
    /// The bitmaps (read through a pointer: the `header` property checks exclusive access at run time).
    @inlinable var bitmaps: TrieHeader { withUnsafeMutablePointerToHeader { $0.pointee } }

    /// The slot at `index`, not retained.
    @inlinable func slot(_ index: Int) -> Unmanaged<AnyObject> {
        withUnsafeMutablePointerToElements { UnsafeRawPointer($0 + index).load(as: Unmanaged<AnyObject>.self) }
    }

    deinit {
        withUnsafeMutablePointers { header, elements in
            _ = elements.deinitialize(count: header.pointee.bitmap.nonzeroBitCount)
        }
    }

    /// A node with these bitmaps whose slots `fill` initializes (all of them, in order).
    static func make(bitmap: UInt32, itemMap: UInt32, _ fill: (UnsafeMutablePointer<AnyObject>) -> Void) -> TrieNode {
        let node = unsafeDowncast(
            create(minimumCapacity: bitmap.nonzeroBitCount) { _ in TrieHeader(bitmap: bitmap, itemMap: itemMap) }, to: TrieNode.self)
        node.withUnsafeMutablePointerToElements { fill($0) }
        return node
    }

    /// `node` with `record` set, the node itself changed when `unique` (no other version refers
    /// to it), else a copy; `added` is set when the id had no record.
    static func setting(_ record: StoredRecord, in node: TrieNode, shift: UInt32, unique: Bool, added: inout Bool) -> TrieNode {
        let bit: UInt32 = 1 << ((UInt32(bitPattern: record.id) >> shift) & 31)
        let header = node.bitmaps
        let index = (header.bitmap & (bit &- 1)).nonzeroBitCount
        guard header.bitmap & bit != 0 else {
            added = true
            return node.copy(inserting: record, at: index, bitmap: header.bitmap | bit, itemMap: header.itemMap | bit)
        }
        if header.itemMap & bit != 0 {
            let existing = unsafeDowncast(node.withUnsafeMutablePointerToElements { $0[index] }, to: StoredRecord.self)
            if existing.id == record.id { return node.replacing(index, with: record, itemMap: header.itemMap, unique: unique) }
            added = true
            let child = pair(existing, record, shift: shift + 5)
            return node.replacing(index, with: child, itemMap: header.itemMap & ~bit, unique: unique)
        }
        // Asked before this function takes its own reference to the child.
        let childUnique = unique && node.withUnsafeMutablePointerToElements { isKnownUniquelyReferenced(&$0[index]) }
        let child = unsafeDowncast(node.withUnsafeMutablePointerToElements { $0[index] }, to: TrieNode.self)
        let updated = setting(record, in: child, shift: shift + 5, unique: childUnique, added: &added)
        if updated === child { return node }
        return node.replacing(index, with: updated, itemMap: header.itemMap, unique: unique)
    }

    /// A node holding two records whose ids agree below `shift` (a chain of nodes while they agree further).
    static func pair(_ a: StoredRecord, _ b: StoredRecord, shift: UInt32) -> TrieNode {
        let sa = (UInt32(bitPattern: a.id) >> shift) & 31, sb = (UInt32(bitPattern: b.id) >> shift) & 31
        if sa == sb {
            let child = pair(a, b, shift: shift + 5)
            return make(bitmap: 1 << sa, itemMap: 0) { $0.initialize(to: child) }
        }
        let (first, second) = sa < sb ? (a, b) : (b, a)
        let bits: UInt32 = 1 << sa | 1 << sb
        return make(bitmap: bits, itemMap: bits) {
            $0.initialize(to: first)
            ($0 + 1).initialize(to: second)
        }
    }

    /// A copy with `entry` inserted at `index` (slot by slot: each slot a retain, no runtime witness).
    func copy(inserting entry: AnyObject, at index: Int, bitmap: UInt32, itemMap: UInt32) -> TrieNode {
        let n = bitmaps.bitmap.nonzeroBitCount
        return withUnsafeMutablePointerToElements { old in
            Self.make(bitmap: bitmap, itemMap: itemMap) { new in
                for i in 0 ..< index { (new + i).initialize(to: old[i]) }
                (new + index).initialize(to: entry)
                for i in index ..< n { (new + i + 1).initialize(to: old[i]) }
            }
        }
    }

    /// This node with the slot at `index` set to `entry` and the item map `itemMap`: itself when
    /// `unique`, else a copy.
    func replacing(_ index: Int, with entry: AnyObject, itemMap: UInt32, unique: Bool) -> TrieNode {
        if unique {
            withUnsafeMutablePointerToElements { $0[index] = entry }
            withUnsafeMutablePointerToHeader { $0.pointee.itemMap = itemMap }
            return self
        }
        let bitmap = bitmaps.bitmap, n = bitmap.nonzeroBitCount
        return withUnsafeMutablePointerToElements { old in
            Self.make(bitmap: bitmap, itemMap: itemMap) { new in
                for i in 0 ..< n { (new + i).initialize(to: i == index ? entry : old[i]) }
            }
        }
    }
}
