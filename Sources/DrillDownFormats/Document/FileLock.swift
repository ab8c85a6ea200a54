#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import DrillDownCore

/// An exclusive advisory lock (`flock`) on a document file, held by every DrillDown writer
/// around read-check-write, so two writers never interleave.
///
/// Writes replace the file by renaming a new one over it, so the lock is taken on the file the
/// path names *after* locking: when a writer renamed a new version in while this one waited,
/// the lock moves on to the new file. The lock is released by ``unlock()`` or when the value
/// goes away.
///
/// A file that is appended to (a history journal) is locked `creating` it: the lock's
/// ``descriptor`` then appends to the file locked.
///
/// ```swift
/// let lock = try FileLock(path)      // waits for other writers
/// … read, apply, write …
/// lock.unlock()
/// ```
public final class FileLock: @unchecked Sendable {
    public let path: String
    private var fd: Int32

    /// The open file the lock is held on (`-1` once unlocked); with `creating`, open for appending.
    public var descriptor: Int32 { fd }

    /// Waits for and takes the lock on the file at `path`, which must exist unless `creating`
    /// (then it is created when missing, and opened for appending).
    public init(_ path: String, creating: Bool = false) throws(FormatError) {
        self.path = path
        while true {
            let fd = creating ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard fd >= 0 else { throw FormatError(file: path, message: "cannot lock the file: \(String(cString: strerror(errno)))") }
            while flock(fd, LOCK_EX) != 0 {
                if errno == EINTR { continue }
                let message = String(cString: strerror(errno))
                close(fd)
                throw FormatError(file: path, message: "cannot lock the file: \(message)")
            }
            // Still the file the path names? (Another writer may have renamed a new one in.)
            if let held = FileStamp.of(descriptor: fd), let named = FileStamp.of(path), held.inode == named.inode {
                self.fd = fd
                return
            }
            close(fd)
        }
    }

    /// Releases the lock (also done when the value goes away).
    public func unlock() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}
