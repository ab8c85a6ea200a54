import DrillDownCore
import Foundation

/// Writes edited trees on a background thread, so a key never waits for a large file to be
/// written: only the newest tree still waiting is written (each write is the whole document),
/// the ``FileWatcher`` does not mistake the browser's own writes for changes made elsewhere, and
/// ``finish()`` waits for the last write before the program exits.
///
/// Each tree comes with the serial of the browser's latest step it holds (``Browser/stepSerial``);
/// ``savedSerial`` is that of the latest tree on disk. A write refused because the file changed
/// elsewhere (seen by the watcher, or a ``SaveConflict`` from `save`) writes nothing more until
/// the newer version is read; the browser then applies the steps after ``savedSerial`` to it.
final class FileSaver: @unchecked Sendable {
    let save: @Sendable (TreeStore) throws -> Void
    let watcher: FileWatcher?
    let notify: @Sendable () -> Void
    private let condition = NSCondition()
    private var pending: (tree: TreeStore, serial: Int)?
    private var running = false
    private var failures: [String] = []
    private var refused = false
    private var saved = 0

    init(save: @escaping @Sendable (TreeStore) throws -> Void, watcher: FileWatcher?, notify: @escaping @Sendable () -> Void) {
        self.save = save
        self.watcher = watcher
        self.notify = notify
    }

    /// Asks for `tree`, which holds the browser's steps up to `serial`, to be written, replacing
    /// a tree that has not started writing yet.
    func submit(_ tree: TreeStore, serial: Int) {
        condition.lock()
        pending = (tree, serial)
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

    /// The serial of the latest tree written (0 before any).
    var savedSerial: Int {
        condition.lock()
        defer { condition.unlock() }
        return saved
    }

    /// Whether a write was refused because the file changed elsewhere, since the last call.
    func takeRefusal() -> Bool {
        condition.lock()
        defer {
            refused = false
            condition.unlock()
        }
        return refused
    }

    /// Waits until every submitted tree is written.
    func finish() {
        condition.lock()
        while running { condition.wait() }
        condition.unlock()
    }

    private func work() {
        var conflict = false
        while true {
            condition.lock()
            guard let (tree, serial) = pending else {
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
                refuse(&conflict)
                continue
            }
            do {
                try save(tree)
                watcher?.recordOwnWrite()
                condition.lock()
                saved = max(saved, serial)
                condition.unlock()
            } catch is SaveConflict {
                refuse(&conflict)
            } catch {
                condition.lock()
                failures.append(String(describing: error))
                condition.unlock()
            }
        }
    }

    /// Notes a write refused because the file changed elsewhere (once per run of writes).
    private func refuse(_ conflict: inout Bool) {
        if !conflict {
            condition.lock()
            refused = true
            condition.unlock()
        }
        conflict = true
    }
}

/// What a terminal app's `save` throws when the file changed elsewhere since the version its
/// tree was made from (nothing was written): the app reads the newer version and applies its
/// unsaved steps to it.
public struct SaveConflict: Error, CustomStringConvertible {
    public init() {}
    public var description: String {
        "the file changed on disk since it was read, so this copy was not written over it; the new version is being read"
    }
}
