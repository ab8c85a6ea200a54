import DrillDownCore
import Foundation
import Synchronization

/// The users file of a running server, read again when it changes on disk (a user added, a token
/// revoked with `drilldown token revoke` takes effect without a restart), and the ``AccessView``
/// of each user per data revision.
///
/// Noticing an edit costs a request next to nothing: a watch of the file's folder (``FolderWatch``)
/// marks the file changed the moment an edit lands, and the file's ``FileStamp`` is compared at most
/// once a second besides (where there is no watch, such as on a network file system, an edit takes
/// effect within that second). (A `stat` per request cost a signed-in cached page measurably; see Docs/benchmarks.md.)
final class AccountStore: Sendable {
    /// The users file as read, and its generation: a number that grows each time the file is read
    /// again (what ``SessionCache`` entries are valid for). One object, so that a request takes it
    /// with one retain.
    final class Loaded: Sendable {
        let file: UsersFile
        let generation: Int
        init(file: UsersFile, generation: Int) {
            self.file = file
            self.generation = generation
        }
    }

    /// Where the users file is.
    let url: URL
    /// `url`'s path, made once: `URL.path` on every request's stat was a measurable part of it.
    private let path: String

    private struct State {
        var loaded: Loaded
        var stamp: FileStamp?
        var views: [String: AccessView] = [:]
        var viewsKey = (revision: -1, generation: -1)
        /// When the stamp is compared again, in seconds of the coarse monotonic clock.
        var nextCheck = 0
        /// Set by the watch when the file's folder changed.
        var changed = false
    }

    /// (A `Mutex`, not a lock beside `var`s: those are checked for exclusive access at each use.)
    private let state: Mutex<State>

    /// Reads `url`.
    /// - Throws: ``AccountsError`` when it is missing or malformed.
    init(url: URL) throws {
        self.url = url
        path = url.path
        state = Mutex(State(loaded: Loaded(file: try UsersFile.load(url), generation: 0), stamp: FileStamp(url.path), nextCheck: Self.seconds() + 1))
        FolderWatch.start(folder: url.deletingLastPathComponent().path) { [weak self] in
            self?.state.withLock { $0.changed = true }
        }
    }

    /// The users file as it is now. A file that became malformed keeps the last good one (and says so on standard error).
    var current: UsersFile { loaded.file }

    /// The users file as it is now, with its generation, read again first when it changed.
    var loaded: Loaded {
        state.withLock { state in
            let second = Self.seconds()
            guard state.changed || second >= state.nextCheck else { return state.loaded }
            state.changed = false
            state.nextCheck = second + 1
            let now = FileStamp(path)
            guard now != state.stamp else { return state.loaded }
            state.stamp = now
            do {
                state.loaded = Loaded(file: try UsersFile.load(url), generation: state.loaded.generation + 1)
            } catch {
                FileHandle.standardError.write(Data("drilldown: \(error); keeping the accounts read before\n".utf8))
            }
            return state.loaded
        }
    }

    /// Changes the users file on disk under its lock (``UsersFile/update(_:missingIsEmpty:now:_:)``)
    /// and reads it again at the next ``snapshot``, without waiting for the folder's watch: the
    /// change holds from this instance's next request on.
    /// - Throws: ``AccountsError`` when the file cannot be locked, read or written.
    func update(_ change: (inout UsersFile) throws -> Void) throws {
        defer { state.withLock { $0.changed = true } }
        try UsersFile.update(url, change)
    }

    /// What `user` may do in the snapshot `source` at `revision`.
    func view(for user: String, in source: any Source, revision: Int) -> AccessView {
        let loaded = loaded
        return state.withLock { state in
            if state.viewsKey != (revision, loaded.generation) || state.views.count > 1000 {
                state.views = [:]
                state.viewsKey = (revision, loaded.generation)
            }
            if let hit = state.views[user] { return hit }
            let made = loaded.file.policy.view(for: user, in: source)
            state.views[user] = made
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
