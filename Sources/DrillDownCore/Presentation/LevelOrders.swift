import Foundation

/// The display orders of recently shown sorted levels, each computed once (the computation reads
/// every row of the level, O(n log n)); a page of a sorted level then costs O(page).
///
/// A ``Presenter`` holds one. Its orders are valid for one snapshot of the data: a front end that
/// makes a presenter per request (the web app) passes the same cache while the data's revision
/// is unchanged and a new one after a change.
public final class LevelOrders: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [Key: LevelOrder] = [:]
    private var matched: [MatchKey: [Int]] = [:]
    private let capacity: Int

    struct MatchKey: Hashable {
        var level: NodeID
        var filter: String
    }

    struct Key: Hashable {
        var level: NodeID
        var rule: SortRule
    }

    /// A cache of at most `capacity` levels' orders.
    public init(capacity: Int = 64) { self.capacity = capacity }

    /// The order of the level under `id` by `rule`, made by `make` on a miss.
    func order(of id: NodeID, by rule: SortRule, make: () -> LevelOrder) -> LevelOrder {
        let key = Key(level: id, rule: rule)
        if let hit = lock.withLock({ entries[key] }) { return hit }
        let made = make()
        lock.withLock {
            if entries.count >= capacity { entries.removeAll() }
            entries[key] = made
        }
        return made
    }

    /// The data indices of the rows of the level under `id` that `filter` matches, made by `make`
    /// on a miss (a filtered level's pages then cost O(page)).
    func matches(of id: NodeID, _ filter: BoundFilter, make: () -> [Int]) -> [Int] {
        let key = MatchKey(level: id, filter: filter.description)
        if let hit = lock.withLock({ matched[key] }) { return hit }
        let made = make()
        lock.withLock {
            if matched.count >= capacity { matched.removeAll() }
            matched[key] = made
        }
        return made
    }
}
