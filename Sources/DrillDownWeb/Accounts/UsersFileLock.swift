import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The lock every read-modify-write of a users file holds: an exclusive `flock` on the sidecar
/// file `USERS.lock` beside it (`users.yaml.lock`). The users file itself cannot carry the lock:
/// it is replaced by a rename at each write, so a lock on it would guard a file no longer there.
/// Servers (a sign-out) and the `drilldown user`/`token` commands all take it, on every instance
/// sharing the file (a lock on a network file system holds only where the system supports `flock`).
enum UsersFileLock {
    /// Calls `body` holding the lock of the users file at `url` (waiting for it when someone else holds it).
    /// - Throws: ``AccountsError`` when the lock file cannot be made or locked, or what `body` throws.
    static func holding<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        let path = url.path + ".lock"
        // Read-only: closing it then is no write the server's watch of the folder notices.
        let fd = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AccountsError("\(path): cannot lock the users file: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw AccountsError("\(path): cannot lock the users file: \(String(cString: strerror(errno)))") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
