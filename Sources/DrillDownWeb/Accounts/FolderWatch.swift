import Foundation

#if os(Linux)
import Glibc
#endif

/// Calls `onChange` soon after an entry of a folder is created, written, renamed into or out of
/// it, deleted or has its attributes changed: Linux's inotify, read on a thread of its own, so
/// noticing an edit costs the requests nothing. Elsewhere (or when inotify is unavailable) there
/// is no watch, and the caller's own check is all there is. The thread lasts as long as the process
/// (one per server).
enum FolderWatch {
    /// Starts watching `folder`; `false` where there is no watch.
    @discardableResult
    static func start(folder: String, onChange: @escaping @Sendable () -> Void) -> Bool {
        #if os(Linux)
        let fd = inotify_init1(Int32(IN_CLOEXEC))
        guard fd >= 0 else { return false }
        let mask = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB | IN_MODIFY)
        guard inotify_add_watch(fd, folder, mask) >= 0 else {
            close(fd)
            return false
        }
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return }
                onChange()
            }
        }
        thread.name = "drilldown users-file watch"
        thread.start()
        return true
        #else
        return false
        #endif
    }
}
