#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What memory a process may still take: asked before a large reservation, so that one that cannot
/// be had ends in an error naming the size rather than in the runtime's abort ("failed to allocate").
///
/// A Swift array that cannot get its memory stops the process; a reader reserves its arrays up
/// front from the input's size, so it asks here first. The answer is the system's: an anonymous
/// writable mapping of the whole size, unmapped at once (what `malloc` does for a large array, so
/// the same address-space and overcommit limits apply; untouched pages cost no memory, and
/// `malloc`'s own thresholds are left alone), which takes a few microseconds.
package enum SystemMemory {
    /// Below this, a reservation is not asked about (a refusal would come soon anyway).
    static let smallest = 1 << 20

    /// Whether `bytes` of memory can be reserved now (in one piece; the arrays that follow take it
    /// in several, which needs no more address space).
    package static func canReserve(_ bytes: Int) -> Bool {
        guard bytes >= smallest else { return true }
        guard let probe = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            probe != UnsafeMutableRawPointer(bitPattern: -1)
        else { return false }
        munmap(probe, bytes)
        return true
    }

    /// Throws ``ReservationFailure`` unless `bytes` can be reserved (see ``canReserve(_:)``).
    package static func reserve(_ bytes: Int, for purpose: String) throws(ReservationFailure) {
        guard canReserve(bytes) else { throw ReservationFailure(bytes: bytes, purpose: purpose) }
    }

    /// Bytes this process can still use: the system's available memory (`MemAvailable`), or less
    /// when an address-space limit (`ulimit -v`, `prlimit --as`) leaves less room above what the
    /// process already maps; `nil` when neither is known.
    package static func available() -> Int? {
        var result: Int?
        #if os(Linux)
        if let text = read("/proc/meminfo"), let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MemAvailable:") }),
            let kb = Int(line.split(separator: " ").dropFirst().first ?? "")
        {
            result = kb * 1024
        }
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max {
            let pages = read("/proc/self/statm").flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
            let room = max(0, Int(clamping: limit.rlim_cur) - pages * Int(sysconf(Int32(_SC_PAGESIZE))))
            result = min(result ?? room, room)
        }
        #endif
        return result
    }

    private static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes.append(contentsOf: buffer[0 ..< n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
