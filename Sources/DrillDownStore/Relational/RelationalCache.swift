import DrillDownCore
import Foundation
import GRDB

/// The lazily filled, lock-protected state of one ``RelationalSource`` snapshot: the id blocks of
/// the levels visited so far and the pages of rows read.
///
/// Ids are laid out in blocks, one per parent whose children were asked for: a block is a
/// contiguous id range (as ``Source`` requires) and knows its parent as (block, position), so
/// its memory is O(levels visited), never O(rows): opening a level of ten million rows is one
/// block. A change (``RelationalStore``) adjusts the blocks it touches and lays the ids out
/// again in O(blocks), keeping every other page, anchor and count.
///
/// A class because the state is shared by every copy of one snapshot (it is a cache, not a
/// value); all access goes through ``withState(_:)``, under one lock. A new snapshot gets a new
/// cache made from a copy of the state (``init(state:)``).
final class RelationalCache: @unchecked Sendable {
    /// One row of a level, as read.
    struct RowData: Sendable {
        var key: DatabaseValue
        var title: String
        var attributes: [Attribute]
        /// The values of the level's order terms (the key last): the row's keyset position.
        var order: [DatabaseValue]
        /// How many rows of the next level it has (from the page's grouped count); `nil` on the last level.
        var childCount: Int?
    }

    /// The children of one parent: a contiguous id range.
    struct Block: Sendable {
        /// The block holding the parent row, or -1 when the parent is the root.
        var parentBlock: Int
        /// The parent row's position in its block.
        var parentPosition: Int
        /// The first id.
        var first: Int32 = 0
        /// The number of rows.
        var count: Int
        /// The level of the rows (0 for the first).
        var depth: Int
        /// The parent row's key (nil under the root).
        var parentKey: DatabaseValue?
        /// Pages of rows read, by page number.
        var pages: [Int: [RowData]] = [:]
        /// The last row of each page read (kept when pages are evicted): where the next page starts.
        var anchors: [Int: RowData] = [:]
        /// The blocks of the rows' children, by row position.
        var childBlocks: [Int: Int] = [:]
    }

    struct State: Sendable {
        /// Blocks by number; `nil` once dropped.
        var blocks: [Block?] = []
        /// The block of the root's children.
        var rootBlock: Int?
        /// Live blocks by first id, ascending: finds the block of an id.
        var layout: [(first: Int32, block: Int)] = []
        /// One past the greatest id.
        var capacity = 1
        /// Pages held, across blocks.
        var pageCount = 0
        /// Why the last read failed, and how many failed.
        var failure: String?
        var failures = 0

        /// Pages kept before every page is dropped (about 100 000 rows).
        static let maxPages = 1000

        /// The block and position of `id` (not the root).
        func locate(_ id: NodeID) -> (block: Int, position: Int)? {
            let raw = id.rawValue
            var low = 0, high = layout.count
            while low < high {
                let mid = (low + high) / 2
                if layout[mid].first <= raw { low = mid + 1 } else { high = mid }
            }
            guard low > 0, let block = blocks[layout[low - 1].block] else { return nil }
            let position = Int(raw - block.first)
            return position < block.count ? (layout[low - 1].block, position) : nil
        }

        /// The id of the row at `position` of `block`.
        func id(_ block: Int, _ position: Int) -> NodeID? {
            guard let b = blocks[block] else { return nil }
            return NodeID(b.first + Int32(position))
        }

        /// The block of the children of `id`, if laid out.
        func childBlock(of id: NodeID, root: NodeID) -> Int? {
            if id == root { return rootBlock }
            guard let (b, p) = locate(id) else { return nil }
            return blocks[b]?.childBlocks[p]
        }

        /// Adds a block of `count` ids at the end of the id space.
        mutating func addBlock(_ block: Block) -> Int {
            var block = block
            block.first = Int32(capacity)
            let n = min(block.count, Int(Int32.max) - capacity)
            block.count = n
            capacity += n
            blocks.append(block)
            let number = blocks.count - 1
            layout.append((block.first, number))
            if block.parentBlock < 0 { rootBlock = number } else { blocks[block.parentBlock]?.childBlocks[block.parentPosition] = number }
            return number
        }

        /// Reserves `count` ids at the end of the id space that no row of this state gets (a row's
        /// JSON fields); `nil` when they do not fit. A relayout (a new snapshot) lets them go.
        mutating func reserve(_ count: Int) -> Int32? {
            guard count > 0, count <= Int(Int32.max) - capacity else { return nil }
            defer { capacity += count }
            return Int32(capacity)
        }

        mutating func store(_ rows: [RowData], block: Int, page: Int) {
            if pageCount >= Self.maxPages {
                for b in blocks.indices { blocks[b]?.pages.removeAll() }
                pageCount = 0
            }
            blocks[block]?.pages[page] = rows
            if let last = rows.last { blocks[block]?.anchors[page] = last }
            pageCount += 1
        }

        /// The cached row at `position` of `block`, if its page is read.
        func cachedRow(_ block: Int, _ position: Int) -> RowData? {
            guard let rows = blocks[block]?.pages[position / RelationalSource.pageSize] else { return nil }
            let i = position % RelationalSource.pageSize
            return i < rows.count ? rows[i] : nil
        }

        mutating func patchRow(_ block: Int, _ position: Int, _ body: (inout RowData) -> Void) {
            let page = position / RelationalSource.pageSize, i = position % RelationalSource.pageSize
            guard var rows = blocks[block]?.pages[page], i < rows.count else { return }
            body(&rows[i])
            blocks[block]?.pages[page] = rows
        }

        // MARK: Changes

        /// Where the children of the row at `path` are cached: their block (if laid out) and the
        /// row itself (block, position; `nil` for the root). Reads nothing.
        func place(of path: TreePath) -> (children: Int?, row: (block: Int, position: Int)?)? {
            var current = rootBlock
            var row: (Int, Int)?
            for i in path.indices {
                guard let b = current else { return nil }
                row = (b, i)
                current = blocks[b]?.childBlocks[i]
            }
            return (current, row)
        }

        /// A row was inserted at `position` among the children of the row at `parent`
        /// (its subtree, when moved there, is `subtree`).
        mutating func inserted(under parent: TreePath, at position: Int, subtree: Int? = nil) {
            guard let place = place(of: parent) else {
                if let subtree { drop(subtree) }
                return
            }
            if let row = place.row { patchRow(row.block, row.position) { $0.childCount = $0.childCount.map { $0 + 1 } } }
            guard let b = place.children, var block = blocks[b] else {
                if let subtree { drop(subtree) }
                return
            }
            block.count += 1
            shift(&block, from: position, by: 1)
            if let subtree {
                block.childBlocks[position] = subtree
                blocks[subtree]?.parentBlock = b
            }
            blocks[b] = block
            renumberChildren(of: b)
            relayout()
        }

        /// The row at `position` among the children of the row at `parent` is gone; returns its
        /// subtree's block when `keepSubtree` (a move), else drops it.
        @discardableResult
        mutating func removed(under parent: TreePath, at position: Int, keepSubtree: Bool = false) -> Int? {
            guard let place = place(of: parent) else { return nil }
            if let row = place.row { patchRow(row.block, row.position) { $0.childCount = $0.childCount.map { max(0, $0 - 1) } } }
            guard let b = place.children, var block = blocks[b] else { return nil }
            let subtree = block.childBlocks.removeValue(forKey: position)
            block.count = max(0, block.count - 1)
            shift(&block, from: position + 1, by: -1)
            blocks[b] = block
            renumberChildren(of: b)
            if let subtree, !keepSubtree { drop(subtree) }
            relayout()
            return keepSubtree ? subtree : nil
        }

        /// The row at `path` was rewritten (not moved): its cached copy is replaced by `row`.
        mutating func updated(_ path: TreePath, row: RowData) {
            guard let position = path.indices.last, let place = place(of: path.parent), let b = place.children else { return }
            patchRow(b, position) { old in
                let count = old.childCount
                old = row
                old.childCount = count
            }
        }

        /// The rows under `parent` were renumbered: their pages and anchors are read again.
        mutating func forget(under parent: TreePath) {
            guard let b = place(of: parent)?.children, let block = blocks[b] else { return }
            pageCount -= block.pages.count
            blocks[b]?.pages = [:]
            blocks[b]?.anchors = [:]
        }

        /// Positions at or after `from` move by `delta`: pages from there on are dropped, anchors
        /// before them kept, child blocks renumbered.
        mutating func shift(_ block: inout Block, from: Int, by delta: Int) {
            let size = RelationalSource.pageSize
            let firstPage = max(0, from - (delta < 0 ? 1 : 0)) / size
            let dropped = block.pages.keys.filter { $0 >= firstPage }
            for k in dropped { block.pages[k] = nil }
            pageCount -= dropped.count
            block.anchors = block.anchors.filter { ($0.key + 1) * size <= from - (delta < 0 ? 1 : 0) }
            var children: [Int: Int] = [:]
            for (p, c) in block.childBlocks { children[p >= from ? p + delta : p] = c }
            block.childBlocks = children
        }

        /// Tells the child blocks of block `b` their parent positions again.
        mutating func renumberChildren(of b: Int) {
            guard let block = blocks[b] else { return }
            for (p, c) in block.childBlocks {
                blocks[c]?.parentPosition = p
                blocks[c]?.parentBlock = b
            }
        }

        /// Drops block `b` and every block below it.
        mutating func drop(_ b: Int) {
            guard let block = blocks[b] else { return }
            pageCount -= block.pages.count
            blocks[b] = nil
            if rootBlock == b { rootBlock = nil }
            for c in block.childBlocks.values { drop(c) }
        }

        /// Lays every live block out again from id 1, in block order.
        /// - Complexity: O(blocks)
        mutating func relayout() {
            var next = 1
            layout.removeAll(keepingCapacity: true)
            for b in blocks.indices {
                guard var block = blocks[b] else { continue }
                block.first = Int32(next)
                blocks[b]?.first = block.first
                layout.append((block.first, b))
                next += block.count
            }
            capacity = next
        }
    }

    private let lock = NSLock()
    private var state: State

    init(state: State = State()) { self.state = state }

    /// A copy of the state, for a new snapshot.
    var copy: State { withState { $0 } }

    /// Runs `body` with exclusive access to the state.
    func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
