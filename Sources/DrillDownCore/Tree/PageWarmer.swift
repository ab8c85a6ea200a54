#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization
#endif

/// Faults in the pages of fresh buffers on a second thread while a reader fills them front to back.
///
/// New memory costs the kernel a page fault and a zeroed page per page touched; for a reader that
/// writes ~100 MB of store that zeroing was more than half of a 47.7 MB JSON load on this machine.
/// A warmer walks the buffers in step (chunk `k` of every buffer, then chunk `k + 1`), each chunk
/// with `madvise(MADV_POPULATE_WRITE)`, which backs pages without changing a byte, so it never
/// races with the reader's writes; when the reader overtakes it, populating a page already there
/// costs a page-table walk. Only the expected part of each buffer is warmed (not its capacity, so
/// resident memory stays that of the store). A no-op off Linux, for small buffers, or when the
/// kernel (before 5.14) refuses.
///
/// ```swift
/// let warmer = PageWarmer([(text, expectedText), (kinds, expectedNodes)])
/// defer { warmer.finish() }
/// ```
package final class PageWarmer: @unchecked Sendable {
    /// Total bytes below which no thread is started (its start costs more than it saves).
    package static let threshold = 16 << 20

    #if os(Linux)
    /// The regions to warm: start address and byte count.
    private let regions: [(start: UnsafeMutableRawPointer, count: Int)]
    /// Set by ``finish()``: the warming thread stops after its current chunk.
    private let stopped = Atomic<Bool>(false)
    private var thread = pthread_t()
    private var running = false
    #endif

    /// Starts warming `regions` (start address, bytes expected to be written) when they are large
    /// enough; call ``finish()`` once the reader is done.
    package init(_ regions: [(UnsafeMutableRawPointer?, Int)]) {
        #if os(Linux)
        self.regions = regions.compactMap { start, count in start.map { ($0, max(0, count)) } }
        guard self.regions.reduce(0, { $0 + $1.count }) >= Self.threshold else { return }
        let context = Unmanaged.passRetained(self).toOpaque()
        running =
            pthread_create(
                &thread, nil,
                { context in
                    Unmanaged<PageWarmer>.fromOpaque(context!).takeRetainedValue().warm()
                    return nil
                }, context) == 0
        if !running { Unmanaged<PageWarmer>.fromOpaque(context).release() }
        #endif
    }

    /// Stops warming and waits for the thread. Call once.
    package func finish() {
        #if os(Linux)
        stopped.store(true, ordering: .relaxed)
        if running { pthread_join(thread, nil) }
        running = false
        #endif
    }

    #if os(Linux)
    /// Chunk `k` of every region in turn, about 2 MiB of the largest region per step.
    private func warm() {
        let largest = regions.map(\.count).max() ?? 0
        let steps = max(1, largest >> 21)
        for k in 0 ..< steps {
            for r in regions {
                // Whole pages only (madvise wants an aligned start; a partial last page is the reader's).
                let base = Int(bitPattern: r.start)
                let lo = (base + r.count * k / steps) & ~4095, hi = (base + r.count * (k + 1) / steps) & ~4095
                guard hi > lo, let start = UnsafeMutableRawPointer(bitPattern: lo) else { continue }
                if madvise(start, hi - lo, 23) != 0 && errno == EINVAL { return }  // MADV_POPULATE_WRITE
            }
            if stopped.load(ordering: .relaxed) { return }
        }
    }
    #endif
}
