import DrillDownCore
import Foundation

/// The few most recently used outlines, keyed by their URL state, so paging through one outline
/// (or a script fetching it) does not rebuild it per request.
///
/// Expand-all (O(n)) is built once per revision and kept apart from the recent states: an
/// `all=1&closed=…` state is a copy of it with the listed paths collapsed, O(n) bytes copied
/// plus O(closed × depth × log width), so a client sending ever new `closed` lists cannot make
/// the server walk the whole tree per request.
///
/// Outlines are kept per reader from whom rows are hidden (``DrillDownCore/AccessView/hidesRows``),
/// since such a reader's outline leaves those rows out; every other reader shares one.
///
/// An outline holds a few bytes per node; the capacity bounds the memory this takes.
final class OutlineCache: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(reader: String, state: OutlineState, outline: Outline)] = []
    private var expandedAll: [String: Outline] = [:]
    private var revision = 0
    private let capacity: Int
    /// How many times the whole tree was expanded (tests check it stays at one per revision).
    private(set) var expandAllBuilds = 0

    /// A cache of at most `capacity` outlines.
    init(capacity: Int) { self.capacity = capacity }

    /// The outline of `state` over the data at `revision`, built on a miss; a newer revision
    /// empties the cache.
    func outline(_ state: OutlineState, presenter: Presenter, revision: Int = 0) -> Outline {
        lock.withLock {
            if revision != self.revision {
                entries.removeAll()
                expandedAll = [:]
                self.revision = revision
            }
        }
        let reader = Self.reader(of: presenter)
        if let hit = lookup(state, reader: reader) { return hit }
        let built = state.all
            ? state.outline(of: presenter.source, expandedAll: expandedAll(presenter: presenter, reader: reader, revision: revision))
            : state.outline(of: presenter)
        lock.withLock {
            entries.removeAll { $0.state == state && $0.reader == reader }
            entries.insert((reader, state, built), at: 0)
            if entries.count > capacity { entries.removeLast() }
        }
        return built
    }

    /// The fully expanded outline of `revision`, built on first use.
    private func expandedAll(presenter: Presenter, reader: String, revision: Int) -> Outline {
        if let cached = lock.withLock({ expandedAll[reader] }) { return cached }
        var outline = Outline(presenter: presenter)
        outline.expandAll()
        lock.withLock {
            expandAllBuilds += 1
            if revision == self.revision {
                if expandedAll.count >= capacity { expandedAll = [:] }
                expandedAll[reader] = outline
            }
        }
        return outline
    }

    /// The name of the reader whose outline differs from everyone's (`""` for everyone's).
    static func reader(of presenter: Presenter) -> String {
        guard let access = presenter.access, access.hidesRows else { return "" }
        return "user:" + access.user
    }

    private func lookup(_ state: OutlineState, reader: String) -> Outline? {
        lock.withLock {
            guard let i = entries.firstIndex(where: { $0.state == state && $0.reader == reader }) else { return nil }
            let entry = entries.remove(at: i)
            entries.insert(entry, at: 0)
            return entry.outline
        }
    }
}
