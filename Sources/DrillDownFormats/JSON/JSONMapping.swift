#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DrillDownCore

/// A JSON file mapped read-only for as long as a lazy index reads it (see ``LazyJSONSource``).
///
/// Nothing is copied: levels are scanned and values parsed straight from the mapping, and the
/// kernel keeps only the pages in use resident. On Linux the mapping is guarded like
/// ``MappedFile``'s: if another process truncates the file meanwhile, touching a page past the
/// new end reads zeros instead of raising `SIGBUS`, ``isDamaged`` turns true and the reads
/// report the file as changed.
final class JSONMapping: @unchecked Sendable {
    /// The file as given.
    let path: String
    /// The mapped bytes.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The file's stamp when it was mapped.
    let stamp: FileStamp?
    /// The slot of ``MappedFile``'s `SIGBUS` guard, when one was free.
    private let slot: Int?

    /// Maps the regular file at `path`.
    init(path: String) throws(FormatError) {
        self.path = path
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw FormatError(file: path, message: "cannot open file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw FormatError(file: path, message: "not a regular file; only a regular file can be indexed lazily")
        }
        let size = Int(info.st_size)
        guard size > 0 else { throw FormatError(file: path, line: 1, column: 1, message: "empty document; expected a JSON value") }
        // The first level's scan reads the whole file at once: the pages are faulted in by the
        // kernel in one go (MAP_POPULATE) rather than one fault per page.
        #if os(Linux)
        let flags = MAP_PRIVATE | MAP_POPULATE
        #else
        let flags = MAP_PRIVATE
        #endif
        guard let mapped = mmap(nil, size, PROT_READ, flags, fd, 0), mapped != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw FormatError(file: path, message: "cannot map file: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeBufferPointer(start: mapped.assumingMemoryBound(to: UInt8.self), count: size)
        stamp = FileStamp.of(descriptor: fd)
        #if os(Linux)
        slot = MappedFile.installed ? MappedFile.claim(Int(bitPattern: mapped), Int(bitPattern: mapped) + size) : nil
        #else
        slot = nil
        #endif
    }

    deinit {
        #if os(Linux)
        if let slot { MappedFile.free(slot) }
        #endif
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }

    /// Whether the file was truncated while mapped (some reads saw zeros instead of its bytes).
    var isDamaged: Bool {
        #if os(Linux)
        if let slot { return MappedFile.table[3 * slot + 2] != 0 }
        #endif
        return false
    }
}
