#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Asks the system to back a large, not yet written buffer with 2 MiB pages (Linux transparent huge
/// pages in `madvise` mode; a no-op elsewhere or when the system refuses).
///
/// A reader writes its whole input and store once, front to back, into fresh memory: with 4 KiB
/// pages that is one page fault (and one zeroed page) per 4 KiB, which on this machine cost more
/// than parsing (reading a 47.7 MB file into a fresh buffer took 57–80 ms, 15 ms with this advice).
/// Pages never written are still never backed, so an upper-bound capacity costs nothing extra but
/// at most one partly used 2 MiB page per buffer.
package enum HugePages {
    /// Buffers smaller than this are left alone (their faults cost little).
    package static let threshold = 4 << 20

    /// Advises huge pages for the whole 2 MiB-aligned pages inside `count` bytes at `start`.
    @inline(__always)
    package static func advise(_ start: UnsafeMutableRawPointer?, _ count: Int) {
        #if os(Linux)
        guard let start, count >= threshold else { return }
        let huge = 2 << 20
        let lo = (Int(bitPattern: start) + huge - 1) & ~(huge - 1)
        let hi = (Int(bitPattern: start) + count) & ~(huge - 1)
        guard hi > lo, let p = UnsafeMutableRawPointer(bitPattern: lo) else { return }
        _ = madvise(p, hi - lo, 14)  // MADV_HUGEPAGE
        #endif
    }

    /// Advises huge pages for a typed buffer of `capacity` elements.
    @inline(__always)
    package static func advise<T>(_ buffer: UnsafeMutableBufferPointer<T>) {
        advise(UnsafeMutableRawPointer(buffer.baseAddress), buffer.count * MemoryLayout<T>.stride)
    }
}
