#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds two members of one object with the same key.
///
/// DrillDown has one rule for duplicate keys: every reader refuses a document that has them (with
/// the key and where it is), and every writer a tree that has them (with the node's path). Other
/// readers keep the last value silently (Python's json, plistlib, PyYAML) or refuse (DrillDown's
/// YAML, as YAML says), so a document with duplicates means different things to different readers;
/// refusing loses nothing without saying so, and whatever DrillDown writes reads back the same
/// everywhere.
///
/// ```swift
/// DuplicateKeys.first(count: 3) { keys[$0] }   // (later: 2, earlier: 0) for ["a", "b", "a"]
/// ```
public enum DuplicateKeys {
    /// Up to this many keys are compared pair by pair; more are hashed and sorted.
    public static let pairwiseLimit = 16

    /// Whether two of the `count` keys that `key` gives are equal. A rare false alarm is possible
    /// for more than ``pairwiseLimit`` keys (equal 64-bit hashes): fast paths use this and leave a
    /// `true` to a reader that checks with ``first(count:key:)``.
    /// - Complexity: O(k²) key comparisons (most stop at the length) up to ``pairwiseLimit`` keys,
    ///   O(k log k) beyond.
    @inlinable
    public static func mayRepeat(count: Int, key: (Int) -> UnsafeRawBufferPointer) -> Bool {
        guard count > 1 else { return false }
        if count <= pairwiseLimit {
            for i in 1 ..< count {
                let a = key(i)
                for j in 0 ..< i where same(a, key(j)) { return true }
            }
            return false
        }
        return hashesRepeat(count: count, key: key)
    }

    /// The first member, in order, whose key an earlier member has, and that earlier member; `nil`
    /// when the keys are all different.
    /// - Complexity: pairwise up to ``pairwiseLimit`` keys (no allocation), O(k log k) beyond.
    public static func first(count: Int, key: (Int) -> UnsafeRawBufferPointer) -> (later: Int, earlier: Int)? {
        guard count > 1 else { return nil }
        if count <= pairwiseLimit {
            for i in 1 ..< count {
                let a = key(i)
                for j in 0 ..< i where same(a, key(j)) { return (i, j) }
            }
            return nil
        }
        guard hashesRepeat(count: count, key: key) else { return nil }
        var order = (0 ..< count).map { (hash: hash(key($0)), index: $0) }
        order.sort { $0.hash != $1.hash ? $0.hash < $1.hash : $0.index < $1.index }
        var found: (later: Int, earlier: Int)?
        var run = 0
        while run < order.count {
            var end = run + 1
            while end < order.count && order[end].hash == order[run].hash { end += 1 }
            // Within a run of equal hashes (in index order), the first repeat of each key.
            for i in run + 1 ..< end {
                guard let j = (run ..< i).first(where: { same(key(order[i].index), key(order[$0].index)) }) else { continue }
                if found == nil || order[i].index < found!.later { found = (order[i].index, order[j].index) }
                break
            }
            run = end
        }
        return found
    }

    /// ``first(count:key:)`` for keys that are values (a tree's ``TextBytes``).
    /// - Complexity: O(k) expected for k keys (pairwise up to ``pairwiseLimit``).
    public static func first<Key: Hashable>(_ keys: [Key]) -> (later: Int, earlier: Int)? {
        if keys.count <= pairwiseLimit {
            for i in keys.indices.dropFirst() {
                for j in 0 ..< i where keys[i] == keys[j] { return (i, j) }
            }
            return nil
        }
        var seen: [Key: Int] = [:]
        seen.reserveCapacity(keys.count)
        for (i, key) in keys.enumerated() {
            if let j = seen[key] { return (i, j) }
            seen[key] = i
        }
        return nil
    }

    /// Whether two keys hold the same bytes.
    @inlinable @inline(__always)
    static func same(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        guard let x = a.baseAddress, let y = b.baseAddress, a.count > 0 else { return true }
        return x.load(as: UInt8.self) == y.load(as: UInt8.self) && memcmp(x, y, a.count) == 0
    }

    @usableFromInline
    static func hashesRepeat(count: Int, key: (Int) -> UnsafeRawBufferPointer) -> Bool {
        var hashes = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: count)
        defer { hashes.deallocate() }
        for i in 0 ..< count { hashes[i] = hash(key(i)) }
        hashes.sort()
        for i in 1 ..< count where hashes[i] == hashes[i - 1] { return true }
        return false
    }

    /// FNV-1a of a key's bytes.
    @usableFromInline
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return h
    }
}
