#if os(Linux)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import DrillDownCore

/// Reads a large regular file through a read-only private mapping (`mmap`) instead of copying it
/// into fresh memory, guarded against the file being truncated meanwhile.
///
/// Reading a 47.7 MB file with `read()` costs the copy and, above all, zeroing every page of the
/// destination (measured here: 15 ms with huge pages, 57–80 ms without; the mapping with
/// `MAP_POPULATE` 4.5 ms). The pages are not populated up front: the JSON reader's first pass
/// touches each half of the file on its own thread, so the two halves fault in side by side (warm
/// load of the 3M-node file 34.8 → 33.3 ms; the other readers were unchanged).
///
/// A mapped file has one hazard: when another process truncates it while it is read, touching a
/// page past the new end raises `SIGBUS`. A process-wide `SIGBUS` handler (installed once) looks
/// the faulting address up in a small table of the mappings being read: for one of them it maps a
/// page of zeros at that address, marks the mapping damaged and returns, so the reader finishes on
/// zeros; ``read(_:_:)`` then discards that result and reports `nil`, and the caller reads the file
/// again with `read()`. A fault anywhere else puts the previous disposition back and lets the
/// access fault again, so other crashes behave as before. A file whose stamp (size, time, inode)
/// changed during the read is read again the same way.
///
/// The mapping is followed by as many bytes of writable memory (when the address space has room
/// for both; else the file is mapped alone and lent to nobody), and offered to the reader as an
/// ``InputLoan``: the JSON reader keeps the mapping as its store's text (slices of the file, the
/// text it decodes after it) instead of copying 25 MB out of a 47.7 MB file. The mapping then
/// lives, guarded, as long as the tree does; a file truncated meanwhile reads as zeros there.
/// DrillDown's own writes replace a file (a new file renamed over it), which leaves the mapped
/// one as it was.
enum MappedFile {
    /// Files smaller than this are copied (a mapping's setup costs more than the copy).
    static let threshold = 1 << 20

    /// The most mappings guarded at once (reads in progress and trees that keep theirs); more fall
    /// back to `read()`.
    static let slots = 256

    /// Per slot: start address (0 = free), end address, damaged flag. Never freed.
    nonisolated(unsafe) static let table: UnsafeMutablePointer<Int> = {
        let t = UnsafeMutablePointer<Int>.allocate(capacity: 3 * slots)
        t.initialize(repeating: 0, count: 3 * slots)
        return t
    }()

    /// The disposition of `SIGBUS` before ours.
    nonisolated(unsafe) static let previous: UnsafeMutablePointer<sigaction> = .allocate(capacity: 1)
    nonisolated(unsafe) static var pageSize = 4096

    /// Serializes claiming and freeing slots (the handler only reads them).
    nonisolated(unsafe) static let lock: UnsafeMutablePointer<pthread_mutex_t> = {
        let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        pthread_mutex_init(m, nil)
        return m
    }()

    /// Installs the handler once; false when the system refused.
    static let installed: Bool = {
        pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        _ = table
        var action = sigaction()
        action.__sigaction_handler = .init(sa_sigaction: mappedFileBusHandler)
        action.sa_flags = SA_SIGINFO | SA_ONSTACK
        sigemptyset(&action.sa_mask)
        return sigaction(SIGBUS, &action, previous) == 0
    }()

    /// Calls `body` with the mapped contents of the regular file at `path` and its stamp; `nil`
    /// (without calling `body`, or discarding what it returned or threw) when the file is small,
    /// not a regular file, cannot be mapped, or was truncated or changed while it was read: the
    /// caller then reads it with `read()`, which also reports every error.
    static func read<R>(
        _ path: String, _ body: (UnsafeBufferPointer<UInt8>, FileStamp?, InputLoan?) throws(FormatError) -> R
    ) throws(FormatError) -> R? {
        guard installed else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let size = Int(info.st_size)
        guard size >= threshold, size <= AtomicFile.maxReadSize else { return nil }
        // One reservation: the file, then (from the next page) room for as many bytes again; the
        // file alone, lent to nobody, when an address-space limit leaves no room for both.
        let fileSpan = (size + pageSize - 1) & ~(pageSize - 1)
        var total = fileSpan + size + pageSize
        let failed = UnsafeMutableRawPointer(bitPattern: -1)
        var reserved = mmap(nil, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if reserved == nil || reserved == failed {
            total = fileSpan
            reserved = mmap(nil, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        }
        guard let area = reserved, area != failed else { return nil }
        guard mmap(area, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == area,
            let slot = claim(Int(bitPattern: area), Int(bitPattern: area) + size)
        else {
            munmap(area, total)
            return nil
        }
        let mapping = Mapping(area, total, slot)
        // Held to the end: its slot must not be freed (and claimed again) before the checks below.
        defer { withExtendedLifetime(mapping) {} }
        let base = UnsafePointer(area.assumingMemoryBound(to: UInt8.self))
        let loan = total > fileSpan ? InputLoan(base: base, appendFrom: fileSpan, capacity: total, keeper: mapping) : nil
        let stamp = FileStamp.of(descriptor: fd)
        let result: Result<R, FormatError>
        do throws(FormatError) {
            result = .success(try body(UnsafeBufferPointer(start: base, count: size), stamp, loan))
        } catch {
            result = .failure(error)
        }
        guard table[3 * slot + 2] == 0, FileStamp.of(descriptor: fd) == stamp else { return nil }
        return try result.get()
    }

    /// A reservation of ``read(_:_:)`` and its guard's slot, released when neither the read nor a
    /// tree that kept it (through its ``InputLoan``) uses it any more.
    final class Mapping: @unchecked Sendable {
        let area: UnsafeMutableRawPointer
        let size: Int
        let slot: Int

        init(_ area: UnsafeMutableRawPointer, _ size: Int, _ slot: Int) {
            self.area = area
            self.size = size
            self.slot = slot
        }

        deinit {
            MappedFile.free(slot)
            MappedFile.unmapLater(area, size)
        }
    }

    /// Unmaps a mapping nothing reads any more on a detached thread (at once when none starts):
    /// tearing down the page-table entries of a 47.7 MB file took a few milliseconds that the
    /// reader's caller need not wait for.
    static func unmapLater(_ mapped: UnsafeMutableRawPointer, _ size: Int) {
        let box = UnsafeMutablePointer<(UnsafeMutableRawPointer, Int)>.allocate(capacity: 1)
        box.initialize(to: (mapped, size))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let started = pthread_create(
            &thread, &attributes,
            { context in
                let box = context!.assumingMemoryBound(to: (UnsafeMutableRawPointer, Int).self)
                munmap(box.pointee.0, box.pointee.1)
                box.deallocate()
                return nil
            }, box)
        if started != 0 {
            munmap(mapped, size)
            box.deallocate()
        }
    }

    static func claim(_ start: Int, _ end: Int) -> Int? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        for i in 0 ..< slots where table[3 * i] == 0 {
            table[3 * i + 2] = 0
            table[3 * i + 1] = end
            table[3 * i] = start
            return i
        }
        return nil
    }

    static func free(_ slot: Int) {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        table[3 * slot] = 0
        table[3 * slot + 1] = 0
    }
}

/// The `SIGBUS` handler of ``MappedFile`` (async-signal-safe: reads the table, calls `mmap` or `sigaction`).
private func mappedFileBusHandler(_ signal: Int32, _ info: UnsafeMutablePointer<siginfo_t>?, _ context: UnsafeMutableRawPointer?) {
    let address = Int(bitPattern: info?.pointee._sifields._sigfault.si_addr)
    let table = MappedFile.table
    for i in 0 ..< MappedFile.slots {
        let start = table[3 * i]
        if start != 0 && address >= start && address < table[3 * i + 1] {
            let page = address & ~(MappedFile.pageSize - 1)
            _ = mmap(UnsafeMutableRawPointer(bitPattern: page), MappedFile.pageSize, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            table[3 * i + 2] = 1
            return
        }
    }
    // Not a guarded mapping: the previous disposition handles the access when it faults again.
    sigaction(SIGBUS, MappedFile.previous, nil)
}
#endif
