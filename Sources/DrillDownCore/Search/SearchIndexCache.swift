import Foundation

/// The ``SearchIndex`` of one ``DocumentSource``, shared by every copy of it (each version of an
/// edited document gets its own cache) and used by any thread.
///
/// The first title search walks the tree as before (a one-off search, such as `drilldown find`,
/// never pays for an index); the second builds the index, which every later search scans.
final class SearchIndexCache: @unchecked Sendable {
    private let lock = NSLock()
    private var index: SearchIndex?
    private var searched = false

    /// The index of `source`; `nil` for the first search, which walks instead.
    func index(of source: DocumentSource) -> SearchIndex? {
        lock.lock()
        defer { lock.unlock() }
        if let index { return index }
        guard searched else {
            searched = true
            return nil
        }
        let built = SearchIndex(source)
        index = built
        return built
    }

    /// Builds the index of `source` now, when it has none (see ``DocumentSource/prepareSearch()``).
    func prepare(_ source: DocumentSource) {
        lock.lock()
        defer { lock.unlock() }
        guard index == nil else { return }
        searched = true
        index = SearchIndex(source)
    }

    /// Bytes the index holds once built (0 before).
    var bytes: Int {
        lock.lock()
        defer { lock.unlock() }
        return index?.bytes ?? 0
    }
}
