import Foundation

/// What the commands need to know of a file before reading it: one `stat` call, through symbolic links.
///
/// `FileManager.attributesOfItem` would also look up the owner's and group's names (reading
/// /etc/passwd and /etc/group): a measurable part of a short command's start.
struct FileStatus {
    /// The size in bytes.
    var bytes: Int
    /// Whether it is a regular file (not a directory, FIFO, socket or device).
    var isRegular: Bool

    /// The status of the file `path` names (the target of a symbolic link), or `nil` if there is none.
    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        bytes = Int(info.st_size)
        isRegular = info.st_mode & S_IFMT == S_IFREG
    }
}
