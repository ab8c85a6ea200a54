import DrillDownCore
import Foundation

/// The users file of a running server, read again when it changes on disk (a user added, a token
/// revoked with `drilldown token revoke` takes effect at the next request), and the
/// ``AccessView`` of each user per data revision.
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

    /// Reads `url`.
    /// - Throws: ``AccountsError`` when it is missing or malformed.
    init(url: URL) throws {
        self.url = url
        file = try UsersFile.load(url)
        path = url.path
        stamp = FileStamp(path)
    }

    /// The users file as it is now. A file that became malformed keeps the last good one (and says so on standard error).
    var current: UsersFile {
        let now = FileStamp(path)
        return lock.withLock {
            guard now != stamp else { return file }
            stamp = now
            do {
                file = try UsersFile.load(url)
                generation += 1
            } catch {
                FileHandle.standardError.write(Data("drilldown: \(error); keeping the accounts read before\n".utf8))
            }
            return file
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

    /// A file's modification time, size and inode, to notice changes cheaply: one `stat` per request
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
