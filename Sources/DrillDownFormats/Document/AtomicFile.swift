#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DrillDownCore

/// Whole-file reads and atomic whole-file writes with plain POSIX calls.
///
/// Both refuse what is not a regular file (a FIFO would block for ever, a device or socket is
/// not a document). A write replaces the file the way a careful editor does:
/// - a symbolic link is followed to its final target, which is replaced (the link stays a link);
/// - a file nobody may write (no `w` bit in its mode, e.g. after `chmod 444`) is refused, even
///   for root, and so is a file the user has no write access to (`access(W_OK)`): a temporary
///   file and a rename need only the directory's permission, so without this check any file in
///   a writable folder could be replaced;
/// - the new file gets the old one's mode, owner and group; when they cannot be kept (another
///   user's file) the write is refused rather than changing them;
/// - a file with more than one hard link is refused: a rename would split the links (the other
///   names would keep the old text) and writing in place would not be atomic.
/// Every refusal is a ``FormatError`` naming the file and the reason, and leaves the file untouched.
enum AtomicFile {
    /// The largest file read into memory (the tree's text offsets are 32-bit).
    static let maxReadSize = 4 << 30 - 1

    /// The contents of the regular file at `path`.
    static func read(_ path: String) throws(FormatError) -> [UInt8] { try readStamped(path).bytes }

    /// Whether `a` and `b` hold the same bytes (`memcmp`: a large file is compared at memory speed).
    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in
            x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0
        } }
    }

    /// Calls `body` with the contents of the regular file at `path` and the stamp of the very file
    /// they were read from: mapped when the file is large (see ``MappedFile``), otherwise (and when
    /// the mapping was disturbed) read with ``readStamped(_:)``, which reports every error. A
    /// mapped file comes with an ``InputLoan``: what `body` returns may keep the mapping.
    static func withContents<R>(
        _ path: String, _ body: (UnsafeBufferPointer<UInt8>, FileStamp?, InputLoan?) throws(FormatError) -> R
    ) throws(FormatError) -> R {
        #if os(Linux)
        if let result = try MappedFile.read(path, body) { return result }
        #endif
        let (bytes, stamp) = try readStamped(path)
        let result: Result<R, FormatError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(FormatError) { return .success(try body(buffer, stamp, nil)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The contents of the regular file at `path` and the stamp of the very file they were read from.
    static func readStamped(_ path: String) throws(FormatError) -> (bytes: [UInt8], stamp: FileStamp?) {
        // O_NONBLOCK: opening a FIFO without a writer must not block before it can be refused.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw failure(path, "cannot open file: \(systemMessage(errno))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(path, "cannot read file: \(systemMessage(errno))") }
        if info.st_mode & S_IFMT == S_IFDIR { throw failure(path, "is a directory, not a document") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw failure(path, "is \(kindName(info.st_mode)), not a regular file; DrillDown reads documents from regular files only")
        }
        let expected = Int(info.st_size)
        guard expected <= maxReadSize else { throw failure(path, "file too large (\(expected) bytes; the limit is 4 GiB)") }
        guard SystemMemory.canReserve(expected) else {
            throw failure(path, ReservationFailure(bytes: expected, purpose: "the file's contents").description)
        }
        var readError: Int32 = 0
        var result = [UInt8](unsafeUninitializedCapacity: expected) { buffer, count in
            count = 0
            HugePages.advise(buffer)  // a large file into 4 KiB pages costs more in faults than parsing it
            while count < expected {
                let n = posixRead(fd, buffer.baseAddress! + count, expected - count)
                if n < 0 {
                    if errno == EINTR { continue }
                    readError = errno
                    return
                }
                if n == 0 { return }
                count += n
            }
        }
        if readError != 0 { throw failure(path, "cannot read file: \(systemMessage(readError))") }
        let stamp = FileStamp.of(descriptor: fd)
        // A file that grew while being read, or one whose size stat does not know (/proc).
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(path, "cannot read file: \(systemMessage(errno))")
            }
            if n == 0 { break }
            result.append(contentsOf: chunk[0 ..< n])
            guard result.count <= maxReadSize else { throw failure(path, "file too large (the limit is 4 GiB)") }
        }
        return (result, stamp)
    }

    /// Replaces the file at `path` (or, for a symbolic link, its final target) with `bytes`
    /// atomically: a temporary file in the same directory is written, given the original's mode
    /// and owner, flushed to disk and renamed over the original. On any failure or refusal (see
    /// the type's notes) the original is untouched and the temporary file removed. A new file
    /// gets mode 0666 minus the umask.
    ///
    /// Returns the stamp of the file written, taken from the new file itself before it is renamed
    /// in: once renamed, the path names a file whose ``FileLock`` nobody holds yet (the caller's lock
    /// is on the file it replaced), so another writer may already have replaced it again by the time
    /// a `stat` of the path returns — a stamp read from the path could name that writer's version.
    @discardableResult
    /// `afterRename` runs right after the rename (tests use it to stand for another writer that
    /// arrives just then).
    static func write(_ bytes: [UInt8], to path: String, afterRename: () -> Void = {}) throws(FormatError) -> FileStamp? {
        try write(to: path, afterRename: afterRename) { fd throws(FormatError) in
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { posixWrite(fd, $0.baseAddress! + written, bytes.count - written) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw failure(path, "cannot write: \(systemMessage(errno))")
                }
                written += n
            }
        }
    }

    /// ``write(_:to:afterRename:)`` with the contents written by `contents` to the temporary file's
    /// descriptor (a writer streaming its output, see ``WriterOutput``); when it throws, the
    /// temporary file is removed and the original left untouched.
    @discardableResult
    static func write(
        to path: String, afterRename: () -> Void = {}, contents: (Int32) throws(FormatError) -> Void
    ) throws(FormatError) -> FileStamp? {
        let target = try writeTarget(path)
        let directory: String
        let name: String
        if let slash = target.path.lastIndex(of: "/") {
            directory = slash == target.path.startIndex ? "/" : String(target.path[..<slash])
            name = String(target.path[target.path.index(after: slash)...])
        } else {
            directory = "."
            name = target.path
        }
        guard !name.isEmpty else { throw failure(path, "cannot write: the path names a directory") }
        let mode: mode_t
        if let existing = target.existing {
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        var template = Array((directory + "/." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure(path, "cannot write: cannot create a temporary file in \(directory): \(systemMessage(errno))") }
        let tempPath = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var succeeded = false
        defer {
            if !succeeded { unlink(tempPath) }
        }
        let stamp: FileStamp?
        do {
            defer { close(fd) }
            if let existing = target.existing, existing.st_uid != geteuid() || existing.st_gid != getegid() {
                guard fchown(fd, existing.st_uid, existing.st_gid) == 0 else {
                    throw failure(
                        path,
                        "not written: it belongs to user \(existing.st_uid), group \(existing.st_gid), and replacing it would make it yours (\(systemMessage(errno)))")
                }
            }
            try contents(fd)
            // After fchown, which clears set-user-ID and set-group-ID bits.
            guard fchmod(fd, mode) == 0 else { throw failure(path, "cannot write: \(systemMessage(errno))") }
            guard fsync(fd) == 0 else { throw failure(path, "cannot write: flushing to disk failed: \(systemMessage(errno))") }
            // The rename below changes only the inode's ctime, which the stamp does not hold.
            stamp = FileStamp.of(descriptor: fd)
        }
        guard rename(tempPath, target.path) == 0 else { throw failure(path, "cannot write: \(systemMessage(errno))") }
        succeeded = true
        afterRename()
        let dirfd = open(directory, O_RDONLY | O_CLOEXEC)
        if dirfd >= 0 {
            _ = fsync(dirfd)
            close(dirfd)
        }
        return stamp
    }

    /// The file a write to `path` replaces (a symbolic link's final target) and its status when it
    /// exists, or a refusal: not a regular file, read-only, not writable by this user, hard-linked.
    static func writeTarget(_ path: String) throws(FormatError) -> (path: String, existing: stat?) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            let code = errno
            guard code == ENOENT else { throw failure(path, "cannot write: \(systemMessage(code))") }
            return (path, nil)
        }
        var target = path
        if info.st_mode & S_IFMT == S_IFLNK {
            guard let resolved = realpath(path, nil) else {
                throw failure(path, "not written: it is a symbolic link to a file that cannot be reached (\(systemMessage(errno)))")
            }
            target = String(cString: resolved)
            free(resolved)
            guard stat(target, &info) == 0 else { throw failure(path, "cannot write \(target): \(systemMessage(errno))") }
        }
        let shown = target == path ? "" : " (the target of the link, \(target))"
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: throw failure(path, "cannot write: is a directory\(shown)")
        default: throw failure(path, "not written: it is \(kindName(info.st_mode))\(shown), not a regular file")
        }
        if info.st_mode & 0o222 == 0 {
            throw failure(
                path,
                "not written: the file\(shown) is read-only (mode \(String(info.st_mode & 0o7777, radix: 8))); make it writable first (chmod u+w)")
        }
        if access(target, W_OK) != 0 {
            throw failure(path, "not written: you may not write to the file\(shown): \(systemMessage(errno))")
        }
        if info.st_nlink > 1 {
            throw failure(
                path,
                "not written: the file\(shown) has \(info.st_nlink) hard links, and replacing it would split them (the other names would keep the old contents); give it a copy of its own first")
        }
        return (target, info)
    }

    /// A file type for messages: "a FIFO (named pipe)", "a socket", ….
    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    private static func failure(_ path: String, _ message: String) -> FormatError {
        FormatError(file: path, message: message)
    }

    private static func systemMessage(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}

@inline(__always)
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

@inline(__always)
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
