#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a writer's bytes go, in bounded memory: kept whole (``Mode/collect``), or bound for a file
/// (``Mode/file(_:keep:limit:)``): kept in memory up to a size, then written a chunk at a time, and
/// past a limit only counted, so an output over the limit is known with its size without being
/// held or written whole.
///
/// Writers append to it as to an array and call ``checkpoint()`` once per node; only there is a
/// full buffer passed on, so a write holds at most `keep` bytes and one node's however large its
/// output, and the check costs one comparison per node.
///
/// ```swift
/// var out = WriterOutput(.file(fd, keep: 16 << 20, limit: 256 << 20))
/// try JSONWriter.write(tree, to: &out)
/// try out.finish()
/// out.isOverLimit   // true: out.total is the size it would have had; the file holds a part of it
/// ```
struct WriterOutput: ByteSink {
    enum Mode {
        /// Keep every byte: ``bytes`` is the output.
        case collect
        /// Keep up to `keep` bytes; past them write to the file descriptor a chunk at a time
        /// (``finish()`` writes the rest); past `limit` bytes in all, write nothing more and count.
        case file(Int32, keep: Int, limit: Int)
    }

    /// Bytes gathered before a checkpoint passes them on.
    static let chunk = 1 << 20

    /// The bytes not yet passed on (all of them in ``Mode/collect``).
    private(set) var bytes: [UInt8] = []
    /// Bytes written to the file or counted and dropped.
    private(set) var passed = 0
    let mode: Mode
    /// Whether bytes go to the file as they come (past `keep`).
    private var streaming = false
    /// Whether what arrives is only counted (past `limit`).
    private var counting = false

    init(_ mode: Mode) { self.mode = mode }

    /// The output's size so far.
    var total: Int { passed + bytes.count }

    /// Whether the output went past its limit: nothing more was written, ``total`` kept counting.
    var isOverLimit: Bool {
        guard case .file(_, _, let limit) = mode else { return false }
        return total > limit
    }

    @inline(__always) mutating func append(_ byte: UInt8) { bytes.append(byte) }

    @inline(__always) mutating func append<S: Sequence<UInt8>>(contentsOf more: S) { bytes.append(contentsOf: more) }

    /// Reserves room for `count` bytes, at most what the mode keeps before passing bytes on.
    mutating func reserve(_ count: Int) {
        switch mode {
        case .collect: bytes.reserveCapacity(count)
        case .file(_, let keep, let limit): bytes.reserveCapacity(min(count, max(keep, 2 * Self.chunk), limit))
        }
    }

    /// Appends `count` copies of `byte`, a chunk of ``blanks`` at a time; only counts them when counting.
    mutating func append(repeating byte: UInt8, count: Int) {
        if counting {
            passed += count
            return
        }
        let run = byte == 0x20 ? Self.blanks.spaces : byte == 0x09 ? Self.blanks.tabs : nil
        guard let run else {
            bytes.append(contentsOf: repeatElement(byte, count: count))
            return
        }
        var left = count
        while left > 0 {
            let n = min(left, Self.blanksLength)
            bytes.append(contentsOf: UnsafeBufferPointer(start: run, count: n))
            left -= n
        }
    }

    static let blanksLength = 4096
    /// Runs of spaces and of tabs for indentation (an array's append of a repeated element is a
    /// loop per byte in a debug build; a buffer's is a copy).
    nonisolated(unsafe) static let blanks: (spaces: UnsafePointer<UInt8>, tabs: UnsafePointer<UInt8>) = {
        let spaces = UnsafeMutablePointer<UInt8>.allocate(capacity: blanksLength)
        spaces.initialize(repeating: 0x20, count: blanksLength)
        let tabs = UnsafeMutablePointer<UInt8>.allocate(capacity: blanksLength)
        tabs.initialize(repeating: 0x09, count: blanksLength)
        return (UnsafePointer(spaces), UnsafePointer(tabs))
    }()

    /// Passes a full buffer on (writes or drops it); writers call it once per node.
    @inline(__always) mutating func checkpoint() throws(WriteFailure) {
        guard bytes.count >= Self.chunk else { return }
        try passOn()
    }

    /// Writes what is left, unless the output went past its limit.
    mutating func finish() throws(WriteFailure) {
        guard case .file(let fd, _, _) = mode, !isOverLimit else { return }
        try write(to: fd)
    }

    private mutating func passOn() throws(WriteFailure) {
        guard case .file(let fd, let keep, let limit) = mode else { return }
        if counting {
            passed += bytes.count
            bytes.removeAll(keepingCapacity: true)
        } else if total > limit {
            counting = true
            passed += bytes.count
            bytes = []
            bytes.reserveCapacity(2 * Self.chunk)
        } else if streaming || bytes.count > keep {
            streaming = true
            try write(to: fd)
        }
    }

    private mutating func write(to fd: Int32) throws(WriteFailure) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { posixWrite(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw WriteFailure("cannot write: \(String(cString: strerror(errno)))")
            }
            done += n
        }
        passed += bytes.count
        bytes.removeAll(keepingCapacity: true)
    }
}

@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
