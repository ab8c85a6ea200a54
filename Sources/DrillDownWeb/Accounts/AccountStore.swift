import DrillDownCore
import Foundation

/// The users file of a running server, read again when it changes on disk (a user added, a token
/// revoked with `drilldown token revoke` takes effect without a restart), and the ``AccessView``
/// of each user per data revision.
///
/// Noticing an edit costs a request next to nothing: a watch of the file's folder (``FolderWatch``)
/// marks the file changed the moment an edit lands, and the file's ``FileStamp`` is compared at most
/// once a second besides (where there is no watch, such as on a network file system, an edit takes
/// effect within that second). (A `stat` per request cost a signed-in cached page measurably; see Docs/benchmarks.md.)
final class AccountStore: @unchecked Sendable {
    /// Where the users file is.
    let url: URL
    /// `url`'s path, made once: `URL.path` on every request's stat was a measurable part of it.
    private let path: String
    private let lock = NSLock()
    private var file: UsersFile
    private var stamp: FileStamp?
    private var generation = 0
    private var views: [String: AccessView] = [:]
    private var viewsKey = (revision: -1, generation: -1)
    /// When the stamp is compared again, in seconds of the coarse monotonic clock.
    private var nextCheck = 0
    /// Set by the watch when the file's folder changed.
    private var changed = false

    /// Reads `url`.
    /// - Throws: ``AccountsError`` when it is missing or malformed.
    init(url: URL) throws {
        self.url = url
        file = try UsersFile.load(url)
        path = url.path
        stamp = FileStamp(path)
        nextCheck = Self.seconds() + 1
        FolderWatch.start(folder: url.deletingLastPathComponent().path) { [weak self] in
            guard let self else { return }
            lock.withLock { changed = true }
        }
    }

    /// The users file as it is now. A file that became malformed keeps the last good one (and says so on standard error).
    var current: UsersFile { snapshot.file }

    /// The users file as it is now, and its generation: a number that grows each time the file is
    /// read again (what ``SessionCache`` entries are valid for).
    var snapshot: (file: UsersFile, generation: Int) {
        lock.withLock {
            let second = Self.seconds()
            guard changed || second >= nextCheck else { return (file, generation) }
            changed = false
            nextCheck = second + 1
            let now = FileStamp(path)
            guard now != stamp else { return (file, generation) }
            stamp = now
            do {
                file = try UsersFile.load(url)
                generation += 1
            } catch {
                FileHandle.standardError.write(Data("drilldown: \(error); keeping the accounts read before\n".utf8))
            }
            return (file, generation)
        }
    }

    /// What `user` may do in the snapshot `source` at `revision`.
    func view(for user: String, in source: any Source, revision: Int) -> AccessView {
        let file = current
        return lock.withLock {
            if viewsKey != (revision, generation) || views.count > 1000 {
                views = [:]
                viewsKey = (revision, generation)
            }
            if let hit = views[user] { return hit }
            let made = file.policy.view(for: user, in: source)
            views[user] = made
            return made
        }
    }

    /// Whole seconds of the coarse monotonic clock (read without a system call).
    static func seconds() -> Int {
        var now = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC_COARSE, &now)
        #else
        clock_gettime(CLOCK_MONOTONIC, &now)
        #endif
        return Int(now.tv_sec)
    }

    /// A file's modification time, size and inode, to notice changes cheaply: one `stat`
    /// (FileManager's attributes also look up the owner's and group's names, which reads the
    /// system's user database every time).
    struct FileStamp: Equatable {
        var seconds: Int
        var nanoseconds: Int
        var size: Int
        var inode: UInt64
        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            seconds = Int(info.st_mtim.tv_sec)
            nanoseconds = Int(info.st_mtim.tv_nsec)
            size = Int(info.st_size)
            inode = UInt64(info.st_ino)
        }
    }
}
