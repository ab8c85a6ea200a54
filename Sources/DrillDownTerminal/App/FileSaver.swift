import DrillDownCore
import Foundation

/// Writes edited trees on a background thread, so a key never waits for a large file to be
/// written: only the newest tree still waiting is written (each write is the whole document),
/// the ``FileWatcher`` does not mistake the browser's own writes for changes made elsewhere, and
/// ``finish()`` waits for the last write before the program exits.
final class FileSaver: @unchecked Sendable {
    let save: @Sendable (TreeStore) throws -> Void
    let watcher: FileWatcher?
    let notify: @Sendable () -> Void
    private let condition = NSCondition()
    private var pending: TreeStore?
    private var running = false
    private var failures: [String] = []

    init(save: @escaping @Sendable (TreeStore) throws -> Void, watcher: FileWatcher?, notify: @escaping @Sendable () -> Void) {
        self.save = save
        self.watcher = watcher
        self.notify = notify
    }

    /// Asks for `tree` to be written, replacing a tree that has not started writing yet.
    func submit(_ tree: TreeStore) {
        condition.lock()
        pending = tree
        let start = !running
        running = true
        condition.unlock()
        guard start else { return }
        watcher?.beginSaving()
        Thread { [self] in work() }.start()
    }

    /// Why writes failed since the last call.
    func takeFailures() -> [String] {
        condition.lock()
        defer {
            failures = []
            condition.unlock()
        }
        return failures
    }

    /// Waits until every submitted tree is written.
    func finish() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    /// Why a write was refused when the file changed elsewhere since it was read.
    static let conflictMessage =
        "the file changed on disk since it was read, so this copy was not written over it; the new version is being read"

    private func work() {
        var conflict = false
        while true {
            condition.lock()
            guard let tree = pending else {
                running = false
                watcher?.endSaving(conflict: conflict)
                condition.broadcast()
                condition.unlock()
                notify()
                return
            }
            pending = nil
            condition.unlock()
            // Never put the browser's older copy over a change made elsewhere (or a half-written file).
            if conflict || watcher?.changedElsewhere() == true {
                if !conflict {
                    condition.lock()
                    failures.append(Self.conflictMessage)
                    condition.unlock()
                }
                conflict = true
                continue
            }
            do {
                try save(tree)
                watcher?.recordOwnWrite()
            } catch {
                condition.lock()
                failures.append(String(describing: error))
                condition.unlock()
            }
        }
    }
}
