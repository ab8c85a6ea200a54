import DrillDownCore
import Foundation
import GRDB

/// The lazily filled, lock-protected state of a ``RelationalSource``: the id blocks reserved for
/// the levels visited so far, and the pages of rows read.
///
/// A class because the state is shared by every copy of the source (it is a cache, not a value);
/// all access goes through ``withState(_:)``, under one lock.
final class RelationalCache: @unchecked Sendable {
    /// One row of a level, as read.
    struct RowData: Sendable {
        var key: DatabaseValue
        var title: String
        var attributes: [Attribute]
    }

    struct State {
        /// Per id: the depth of its level in the chain (-1 for the root), its parent, and its
        /// children's id block (`firstChild` -1 until counted).
        var levels: [Int8] = [-1]
        var parents: [Int32] = [-1]
        var firstChild: [Int32] = [-1]
        var childCounts: [Int32] = [0]
        /// Pages of rows, keyed by parent id and page number.
        var pages: [Int64: [RowData]] = [:]
        var failure: String?

        /// Pages kept before the page cache is emptied (about 100 000 rows).
        static let maxPages = 1000

        var count: Int { levels.count }

        func children(of id: NodeID) -> NodeRange? {
            let first = firstChild[id.index]
            return first < 0 ? nil : NodeRange(first, first + childCounts[id.index])
        }

        mutating func setChildren(of id: NodeID, first: Int32, count: Int32) {
            firstChild[id.index] = first
            childCounts[id.index] = count
        }

        /// Reserves `count` consecutive ids for the children of `id`, at `depth`.
        mutating func reserve(_ count: Int, under id: NodeID, depth: Int) -> NodeRange {
            let first = Int32(levels.count)
            let n = min(count, Int(Int32.max) - Int(first))
            levels.append(contentsOf: repeatElement(Int8(depth), count: n))
            parents.append(contentsOf: repeatElement(id.rawValue, count: n))
            firstChild.append(contentsOf: repeatElement(-1, count: n))
            childCounts.append(contentsOf: repeatElement(0, count: n))
            setChildren(of: id, first: first, count: Int32(n))
            return NodeRange(first, first + Int32(n))
        }

        func page(_ parent: Int32, _ page: Int) -> [RowData]? { pages[Int64(parent) << 32 | Int64(page)] }

        mutating func store(_ rows: [RowData], parent: Int32, page: Int) {
            if pages.count >= Self.maxPages { pages.removeAll(keepingCapacity: true) }
            pages[Int64(parent) << 32 | Int64(page)] = rows
        }
    }

    private let lock = NSLock()
    private var state = State()

    /// Runs `body` with exclusive access to the state.
    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
