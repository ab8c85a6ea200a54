import Foundation

/// Where a data set's ``HistoryRecord``s are kept: a table beside the data (SQLite, PostgreSQL)
/// or a document's journal file. A ``DocumentModel`` with a log records every step in it, and
/// ``DocumentModel/revert(_:key:)`` reads it.
///
/// A log whose store writes the records itself, in each step's own transaction (a database),
/// returns `true` from ``writtenByStore``; the model then hands the author to the store
/// (``EditingStore/historyDraft``) instead of appending.
public protocol HistoryLog: Sendable {
    /// Whether the store writes each step's record in the step's own transaction.
    var writtenByStore: Bool { get }
    /// Durably records `records` as about to be written (ids assigned, in order), before the data
    /// is; returns them with their ids. ``finish(_:written:)`` says whether the data was written.
    func begin(_ records: [HistoryRecord]) throws -> [HistoryRecord]
    /// Marks records begun with ``begin(_:)`` as written with the data (`written`) or abandoned.
    func finish(_ ids: [Int64], written: Bool) throws
    /// The records touching the node at `path` (or below it; every record for the root), newest
    /// first, skipping `offset` and returning at most `limit`, and how many there are in all.
    func page(touching path: TreePath, offset: Int, limit: Int) throws -> HistoryPage
    /// The record numbered `id`, if there is one.
    func record(_ id: Int64) throws -> HistoryRecord?
    /// Every record after `id`, oldest first.
    func records(after id: Int64) throws -> [HistoryRecord]
    /// The first `limit` records after `id`, oldest first (a database reads no more).
    func records(after id: Int64, limit: Int) throws -> [HistoryRecord]
    /// The newest records first, of `author` only (``HistoryAuthor/made(_:)``), up to `limit`:
    /// where a user's Undo and Redo look for their steps.
    func recent(by author: HistoryAuthor, limit: Int) throws -> [HistoryRecord]
}

extension HistoryLog {
    public var writtenByStore: Bool { false }

    public func records(after id: Int64, limit: Int) throws -> [HistoryRecord] { Array(try records(after: id).prefix(limit)) }

    /// Appends `records` at once (a log with no separate data write).
    public func append(_ records: [HistoryRecord]) throws -> [HistoryRecord] {
        let begun = try begin(records)
        try finish(begun.map(\.id), written: true)
        return begun
    }

    public func recent(by author: HistoryAuthor, limit: Int) throws -> [HistoryRecord] {
        let all = try page(touching: .root, offset: 0, limit: Int.max).records
        return Array(all.lazy.filter { author.made($0) }.prefix(limit))
    }
}

/// One page of a history, newest first.
public struct HistoryPage: Sendable, Equatable, Codable {
    /// The records on this page.
    public var records: [HistoryRecord]
    /// How many records match in all.
    public var total: Int

    /// Creates a page.
    public init(records: [HistoryRecord], total: Int) {
        self.records = records
        self.total = total
    }

    /// The page `offset ..< offset + limit` of `matching` (newest first).
    public init(_ matching: [HistoryRecord], offset: Int, limit: Int) {
        let start = min(max(0, offset), matching.count)
        let end = limit >= matching.count - start ? matching.count : start + max(0, limit)
        self.init(records: Array(matching[start ..< end]), total: matching.count)
    }
}

/// A history kept in memory (for a document without a file, and tests).
public final class MemoryHistoryLog: HistoryLog, @unchecked Sendable {
    private let lock = NSLock()
    private var kept: [HistoryRecord] = []
    private var pending: [Int64: HistoryRecord] = [:]
    private var next: Int64 = 1

    /// An empty history.
    public init() {}

    public func begin(_ records: [HistoryRecord]) throws -> [HistoryRecord] {
        lock.withLock {
            records.map { record in
                var r = record
                r.id = next
                next += 1
                pending[r.id] = r
                return r
            }
        }
    }

    public func finish(_ ids: [Int64], written: Bool) throws {
        lock.withLock {
            for id in ids {
                if let r = pending.removeValue(forKey: id), written { kept.append(r) }
            }
            kept.sort { $0.id < $1.id }
        }
    }

    public func page(touching path: TreePath, offset: Int, limit: Int) throws -> HistoryPage {
        let all = lock.withLock { kept }
        return HistoryPage(all.reversed().filter { $0.touches(path) }, offset: offset, limit: limit)
    }

    public func record(_ id: Int64) throws -> HistoryRecord? { lock.withLock { kept.first { $0.id == id } } }

    public func records(after id: Int64) throws -> [HistoryRecord] { lock.withLock { kept.filter { $0.id > id } } }
}
