#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import CDrillDownSIMD
import Synchronization

/// Where stage 2 (``JSONIndexedParser``) gets its structural index from: a window of entries
/// (`positions[k ..< n]`, `bytes[k ..< n]`) that a feed refills when fewer than the parser's
/// reach are left. After the last entry come ``JSONStructuralScanner/slack`` entries of
/// ``JSONStructuralScanner/end``.
protocol JSONIndexFeed {
    /// Points the window at the first entries.
    mutating func start(_ positions: inout UnsafeMutablePointer<UInt32>, _ bytes: inout UnsafeMutablePointer<UInt8>, _ n: inout Int)
    /// Keeps the unread entries `k ..< n` and appends the next ones; `k` becomes where they start.
    mutating func refill(
        _ positions: inout UnsafeMutablePointer<UInt32>, _ bytes: inout UnsafeMutablePointer<UInt8>, _ k: inout Int, _ n: inout Int)
    /// Whether the window holds the last entries (and the `end` entries after them).
    var atEnd: Bool { get }
    /// Stops the feed (the parser is done or gave up) and says whether the input passed stage 1's checks.
    mutating func finish() -> Bool
}

/// Scans on the parser's thread, a batch at a time into one buffer (small inputs, one core).
struct JSONScanFeed: JSONIndexFeed {
    var scanner: JSONStructuralScanner
    let positions: UnsafeMutablePointer<UInt32>
    let bytes: UnsafeMutablePointer<UInt8>

    init(_ scanner: JSONStructuralScanner) {
        self.scanner = scanner
        positions = .allocate(capacity: JSONIndexedParser.batch)
        bytes = .allocate(capacity: JSONIndexedParser.batch)
    }

    var atEnd: Bool { scanner.atEnd }

    func start(_ positions: inout UnsafeMutablePointer<UInt32>, _ bytes: inout UnsafeMutablePointer<UInt8>, _ n: inout Int) {
        positions = self.positions
        bytes = self.bytes
        n = 0
    }

    /// Moves the entries not yet read to the front of the buffer and fills the rest.
    @inline(never)
    mutating func refill(
        _ positions: inout UnsafeMutablePointer<UInt32>, _ bytes: inout UnsafeMutablePointer<UInt8>, _ k: inout Int, _ n: inout Int
    ) {
        let left = n - k
        positions.update(from: positions + k, count: left)
        bytes.update(from: bytes + k, count: left)
        n = scanner.fill(positions, bytes, from: left, capacity: JSONIndexedParser.batch)
        k = 0
    }

    mutating func finish() -> Bool {
        positions.deallocate()
        bytes.deallocate()
        return scanner.isValid
    }
}

/// Scans on a second thread while the parser builds the store on its own: stage 1 runs ahead
/// through a ring of batches, so a load costs about stage 2 alone instead of both stages.
///
/// The ring has ``slots`` batches, each with room for ``reach`` entries before its first one: the
/// parser copies the entries it has not read yet there, so its window stays contiguous when it
/// moves to the next batch. The scanning thread writes a batch, then publishes it (`produced`,
/// release); the parser reads it after seeing `produced` (acquire) and hands it back (`consumed`)
/// once it has moved on. Neither side takes a lock; the scanner sleeps 20 µs when the ring is
/// full (it is about three times faster than the parser, so it is full most of the time) and the
/// parser yields the core when it is empty (only at the start).
final class JSONThreadedFeed: JSONIndexFeed, @unchecked Sendable {
    /// Batches in the ring (about 1.3 MB with their offsets and bytes).
    static let slots = 64
    /// Room before a batch's entries for the ones the parser has not read yet.
    static let reach = 16
    static let slotSize = reach + JSONIndexedParser.batch

    /// Inputs from this size are scanned on a second thread (when there is a second core).
    static let threshold = 2 << 20

    private var scanner: JSONStructuralScanner
    private let positions: UnsafeMutablePointer<UInt32>
    private let bytes: UnsafeMutablePointer<UInt8>
    /// Entries written into each slot (from offset ``reach``) and whether they are the last ones.
    private let counts: UnsafeMutablePointer<Int>
    private let ends: UnsafeMutablePointer<Bool>
    /// Batches written so far; batches the parser is done with.
    private let produced = Atomic<Int>(0)
    private let consumed = Atomic<Int>(0)
    /// Set when the parser stops before the end.
    private let stopped = Atomic<Bool>(false)
    /// Set by the scanning thread when it returns.
    private let scanned = Atomic<Bool>(false)
    /// Set when the parser asked for a batch that will never come (a broken ring; never in practice).
    private var broken = false
    private var thread = pthread_t()
    private var running = false
    /// The input bytes from ``countFrom`` on are counted (``dd_json_count``) by the scanning thread
    /// before it scans, while the parser's thread counts the bytes before: sizing the store takes
    /// half the time. `counted` publishes ``laterCounts``.
    private let countFrom: Int
    private var laterCounts = dd_json_counts(separators: 0, syntax: 0)
    private let counted = Atomic<Bool>(false)
    /// The parser's side: the batch its window is in, and whether that batch is the last.
    private var current = 0
    private(set) var atEnd = false

    /// Batches the scanning thread has written so far.
    var batchesWritten: Int { produced.load(ordering: .acquiring) }
    /// Whether the scanning thread has returned (after the last batch, or stopped).
    var scanDone: Bool { scanned.load(ordering: .acquiring) }

    /// Whether an input of `count` bytes is worth a second thread here: not when this process may
    /// run on one processor only (`taskset -c 0`, a container's cpuset), where the two threads
    /// would take turns on it (62 ms for the 47.7 MB benchmark file, against 46–54 ms on one thread).
    static func worthIt(_ count: Int) -> Bool {
        count >= threshold && usableProcessors >= 2
    }

    /// ``dd_usable_processors()``, asked once.
    static let usableProcessors = Int(dd_usable_processors())

    private init(_ scanner: JSONStructuralScanner, countFrom: Int) {
        self.scanner = scanner
        self.countFrom = countFrom
        positions = .allocate(capacity: Self.slots * Self.slotSize)
        bytes = .allocate(capacity: Self.slots * Self.slotSize)
        counts = .allocate(capacity: Self.slots)
        ends = .allocate(capacity: Self.slots)
    }

    /// A feed whose scanning thread has started, or `nil` when no thread could be started. The
    /// thread first counts the input from `countFrom` (see ``inputCounts()``).
    static func started(_ scanner: JSONStructuralScanner, countFrom: Int? = nil) -> JSONThreadedFeed? {
        let feed = JSONThreadedFeed(scanner, countFrom: countFrom ?? scanner.count)
        let context = Unmanaged.passRetained(feed).toOpaque()
        feed.running =
            pthread_create(
                &feed.thread, nil,
                { context in
                    Unmanaged<JSONThreadedFeed>.fromOpaque(context!).takeRetainedValue().scan()
                    return nil
                }, context) == 0
        guard feed.running else {
            Unmanaged<JSONThreadedFeed>.fromOpaque(context).release()
            return nil
        }
        return feed
    }

    deinit {
        positions.deallocate()
        bytes.deallocate()
        counts.deallocate()
        ends.deallocate()
    }

    /// The scanning thread: fills batch after batch until the input ends or the parser stops.
    private func scan() {
        defer { scanned.store(true, ordering: .releasing) }
        laterCounts = dd_json_count_fast(scanner.base + countFrom, UInt64(scanner.count - countFrom))
        counted.store(true, ordering: .releasing)
        var j = 0
        while true {
            while j - consumed.load(ordering: .acquiring) >= Self.slots {
                if stopped.load(ordering: .relaxed) { return }
                var pause = timespec(tv_sec: 0, tv_nsec: 20_000)
                nanosleep(&pause, nil)
            }
            let slot = j % Self.slots
            let at = slot * Self.slotSize + Self.reach
            counts[slot] = scanner.fill(positions + at, bytes + at, from: 0, capacity: JSONIndexedParser.batch)
            ends[slot] = scanner.atEnd
            produced.store(j + 1, ordering: .releasing)
            if scanner.atEnd || stopped.load(ordering: .relaxed) { return }
            j += 1
        }
    }

    /// The counts of the whole input: the bytes before ``countFrom`` counted here, the rest by the
    /// scanning thread (waited for).
    func inputCounts() -> dd_json_counts {
        let earlier = dd_json_count_fast(scanner.base, UInt64(countFrom))
        while !counted.load(ordering: .acquiring) { sched_yield() }
        return dd_json_counts(separators: earlier.separators + laterCounts.separators, syntax: earlier.syntax + laterCounts.syntax)
    }

    /// Waits until batch `j` is written; `false` if the scanning thread returned without writing it.
    @inline(__always)
    private func wait(for j: Int) -> Bool {
        var spins = 0
        while produced.load(ordering: .acquiring) <= j {
            if scanned.load(ordering: .acquiring) && produced.load(ordering: .acquiring) <= j { return false }
            spins += 1
            if spins > 64 { sched_yield() }
        }
        return true
    }

    /// Ends the window with `end` entries after `wait` failed: the parser stops, ``finish()`` says invalid.
    private func breakOff(_ positions: inout UnsafeMutablePointer<UInt32>, _ bytes: inout UnsafeMutablePointer<UInt8>, _ k: inout Int, _ n: inout Int) {
        broken = true
        atEnd = true
        positions = self.positions
        bytes = self.bytes
        positions.update(repeating: 0, count: JSONStructuralScanner.slack)
        bytes.update(repeating: JSONStructuralScanner.end, count: JSONStructuralScanner.slack)
        k = 0
        n = 0
    }

    func start(_ positions: inout UnsafeMutablePointer<UInt32>, _ bytes: inout UnsafeMutablePointer<UInt8>, _ n: inout Int) {
        var k = 0
        guard wait(for: 0) else { return breakOff(&positions, &bytes, &k, &n) }
        positions = self.positions + Self.reach
        bytes = self.bytes + Self.reach
        n = counts[0]
        atEnd = ends[0]
    }

    @inline(never)
    func refill(
        _ positions: inout UnsafeMutablePointer<UInt32>, _ bytes: inout UnsafeMutablePointer<UInt8>, _ k: inout Int, _ n: inout Int
    ) {
        let next = current + 1
        guard wait(for: next) else { return breakOff(&positions, &bytes, &k, &n) }
        let left = n - k
        let slot = next % Self.slots
        let at = slot * Self.slotSize + Self.reach - left
        (self.positions + at).update(from: positions + k, count: left)
        (self.bytes + at).update(from: bytes + k, count: left)
        consumed.store(next, ordering: .releasing)  // the parser no longer reads batch `current`
        current = next
        positions = self.positions + at
        bytes = self.bytes + at
        k = 0
        n = left + counts[slot]
        atEnd = ends[slot]
    }

    func finish() -> Bool {
        stopped.store(true, ordering: .relaxed)
        if running { pthread_join(thread, nil) }
        running = false
        return scanner.isValid && !broken
    }
}
