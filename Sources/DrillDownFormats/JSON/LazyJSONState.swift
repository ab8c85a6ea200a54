#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What a ``LazyJSONSource`` has read so far, behind one lock: the levels visited and the ids
/// given to their children, the levels that failed to read, and counters for `stats`.
///
/// Ids are handed out a level at a time, so siblings are a contiguous range; ``levels`` is in
/// the order ids were given, so the level holding an id is found by binary search.
final class LazyJSONState: @unchecked Sendable {
    /// One visited level: whose children these are, the first child's id, and the scan.
    struct Level {
        let owner: Int32
        let first: Int32
        let scan: JSONLevel
        /// How many brackets enclose the level's container, its own included (the nesting the
        /// full read limits to ``JSONReader/maxDepth``).
        let depth: Int
    }

    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Visited levels, by first id.
    var levels: [Level] = []
    /// The level of each owner whose children were asked for; -1 when it has none.
    var levelOfOwner: [Int32: Int32] = [:]
    /// Owners whose level failed to read, with the message.
    var failedOwners: [Int32: String] = [:]
    /// The next id to hand out (the root is 0).
    var nextID: Int32 = 1
    /// Failed reads so far and the last one's message.
    var failureCount = 0
    var lastFailure: String?
    /// Bytes of containers scanned for levels, and the time it took.
    var scannedBytes = 0
    var scanNanoseconds: UInt64 = 0
    /// The top-level object's members, kept when it is large (set while opening, then only read).
    var rootMembers: JSONLevel?
    /// The root's title, read once while opening (it is shown on every screen).
    var rootTitle: String?
    /// The last level scanned but not yet given ids (the root's, scanned while choosing the mode).
    var pending: JSONLevel?

    init() {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` holding the lock.
    @inline(__always)
    func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Counts a failed read (the lock held).
    func fail(_ message: String) {
        failureCount += 1
        lastFailure = message
    }

    /// The level holding `id` (not the root) and its position there (the lock held).
    func place(of id: Int32) -> (level: Level, position: Int)? {
        var lo = 0, hi = levels.count - 1
        guard hi >= 0, id >= 1, id < nextID else { return nil }
        while lo < hi {
            let mid = (lo + hi + 1) >> 1
            if levels[mid].first <= id { lo = mid } else { hi = mid - 1 }
        }
        let level = levels[lo]
        let position = Int(id - level.first)
        return position < level.scan.count ? (level, position) : nil
    }
}
