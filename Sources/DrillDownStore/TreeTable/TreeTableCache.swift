import DrillDownCore
import Foundation
import GRDB

/// One row of `nodes`, as read.
package struct NodeRecord: Sendable, Equatable {
    package var id: Int64
    package var kind: ValueKind
    package var key: String?
    /// A scalar's text (`nil` for containers).
    package var value: String?
    /// The number of children (the maintained `nchildren` column, or a count where there is none).
    package var count: Int
    package var position: Int64

    package init(id: Int64, kind: ValueKind, key: String?, value: String?, count: Int, position: Int64) {
        self.id = id
        self.kind = kind
        self.key = key
        self.value = value
        self.count = count
        self.position = position
    }

    /// A row as stored, its kind checked: `kind` must be a ``ValueKind`` raw value.
    package init(id: Int64, rawKind: Int64, key: String?, value: String?, count: Int, position: Int64) throws(StoreError) {
        guard rawKind >= 0, rawKind < Int64(ValueKind.allCases.count), let kind = ValueKind(rawValue: UInt8(rawKind)) else {
            throw StoreError(file: "", message: "node \(id) has kind \(rawKind), which is not a known kind (0–\(ValueKind.allCases.count - 1))")
        }
        self.init(id: id, kind: kind, key: key, value: kind.isContainer ? nil : value ?? "", count: count, position: position)
    }
}

/// A node shown in a level, with what showing it needs: its first members (for objects) and the
/// elements of its small scalar arrays (for attribute summaries).
struct LevelRow: Sendable, Equatable {
    var node: NodeRecord
    /// The first ``TreeTableCache/memberLimit`` members, by position.
    var members: [NodeRecord] = []
    /// Whether ``members`` holds every member.
    var membersComplete = true
    /// The elements of member arrays of at most 8 scalars, by the array's id.
    var smallArrays: [Int64: [String]] = [:]
}

/// The lazily filled, lock-protected state of a ``TreeTableSource``: the id blocks reserved for
/// the levels visited so far, their pagination boundaries, and the pages of rows read.
///
/// A class because the state is shared by the copies of one snapshot (it is a cache, not a
/// value); all access goes through ``withState(_:)``, under one lock. Memory grows with the
/// levels visited (a few dozen bytes each) and the pages kept (at most ``maxPages``), never with
/// the size of a level: a level of ten million rows is one ``Level``.
final class TreeTableCache: @unchecked Sendable {
    /// Rows read per query.
    static let pageSize = 100
    /// Members of one node kept for its attributes (the source shows at most 500).
    static let memberLimit = 600
    /// Pages kept before the page cache is emptied.
    static let maxPages = 600

    /// The children of one visible node: a contiguous block of visible ids, read page by page.
    struct Level: Sendable {
        /// The visible node whose children these are.
        var owner: Int32
        /// The stored node whose rows of `nodes` are the children (a row's children array in the outline convention).
        var list: Int64
        var listKind: ValueKind
        var first: Int32
        var count: Int32
        /// The (position, id) of the last row of each page, for pages 0 ..< boundaries.count:
        /// page p is read with `(position, id) > boundaries[p - 1]` (keyset pagination, no OFFSET).
        var boundaries: [(Int64, Int64)] = []
    }

    struct State: Sendable {
        /// `PRAGMA data_version` when this snapshot was taken.
        var version: Int64
        var root: LevelRow
        /// The next free visible id.
        var next: Int32 = 1
        /// Levels by their first id (ids are handed out in increasing order).
        var levels: [Level] = []
        /// The level index of each visible node whose children were asked for (-1: it has none).
        var levelOf: [Int32: Int32] = [:]
        /// Pages of rows, keyed by level index and page number.
        var pages: [Int64: [LevelRow]] = [:]

        /// The level `id` belongs to (binary search over the levels' id blocks).
        func levelIndex(containing id: Int32) -> Int? {
            var low = 0, high = levels.count
            while low < high {
                let mid = (low + high) / 2
                if levels[mid].first + levels[mid].count <= id { low = mid + 1 } else { high = mid }
            }
            guard low < levels.count, levels[low].first <= id else { return nil }
            return low
        }

        static func pageKey(_ level: Int, _ page: Int) -> Int64 { Int64(level) << 32 | Int64(page) }
    }

    private let lock = NSLock()
    private var state: State

    init(_ state: State) { self.state = state }

    /// Runs `body` with exclusive access to the state.
    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// The reads that failed: how many, and the last one's message. Under a lock of its own, so a
    /// request asking whether its reads failed never waits behind another's read of the database
    /// (which holds the state's lock up to `--db-timeout`).
    private let failureLock = NSLock()
    private var failed: (count: Int, last: String?) = (0, nil)

    /// The reads that failed so far: how many, and the last one's message.
    var failures: (count: Int, last: String?) {
        failureLock.lock()
        defer { failureLock.unlock() }
        return failed
    }

    /// Counts a failed read.
    func noteFailure(_ message: String) {
        failureLock.lock()
        defer { failureLock.unlock() }
        failed = (failed.count + 1, message)
    }

    /// A copy of the state (for a new snapshot that keeps what is still valid).
    func copy() -> State { withState { $0 } }
}
