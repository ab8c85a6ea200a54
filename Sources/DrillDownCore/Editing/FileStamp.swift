#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What identifies one version of a file: its modification time, size and inode. A writer that
/// replaces the file (a rename) changes the inode; one that writes in place changes the time or size.
///
/// Every front end that follows a file (the terminal's watcher, a document model's writes and
/// refreshes) compares these, so "the file changed elsewhere" means the same thing everywhere.
public struct FileStamp: Sendable, Equatable {
    public var seconds: Int
    public var nanoseconds: Int
    public var size: Int64
    public var inode: UInt64

    /// A stamp from its parts (as a journal kept it).
    public init(seconds: Int, nanoseconds: Int, size: Int64, inode: UInt64) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
        self.size = size
        self.inode = inode
    }

    /// The stamp of the file at `path`, or `nil` when it cannot be read.
    public static func of(_ path: String) -> FileStamp? {
        var s = stat()
        guard stat(path, &s) == 0 else { return nil }
        return FileStamp(s)
    }

    /// The stamp of an open file.
    public static func of(descriptor fd: Int32) -> FileStamp? {
        var s = stat()
        guard fstat(fd, &s) == 0 else { return nil }
        return FileStamp(s)
    }

    init(_ s: stat) {
        #if canImport(Darwin)
        seconds = Int(s.st_mtimespec.tv_sec)
        nanoseconds = Int(s.st_mtimespec.tv_nsec)
        #else
        seconds = Int(s.st_mtim.tv_sec)
        nanoseconds = Int(s.st_mtim.tv_nsec)
        #endif
        size = Int64(s.st_size)
        inode = UInt64(s.st_ino)
    }
}
