import DrillDownCore
import Foundation
import GRDB

/// A ``Source`` over an SQLite tree table that reads only what is shown: opening reads the root
/// row, and each level is read a page at a time through the `(parent, position)` index.
///
/// Nodes are read with the same rules as ``DocumentSource`` (the outline convention: a row is
/// an object, titled by its `Title` member, with its children in its `Children` array and its
/// other members as attributes; or generically), so a table converted from a document shows the
/// same screens as the document.
///
/// Asking for a node's children reads its child count (the maintained `nchildren` column, one
/// row) and reserves a block of ids for them, so siblings are a contiguous id range as ``Source``
/// requires; ``capacity`` grows as levels are visited. Rows are read ``TreeTableCache/pageSize``
/// at a time with keyset pagination (`WHERE parent = ? AND (position, id) > (?, ?) ORDER BY
/// position, id LIMIT ?`), each page's members in one more query, and cached.
///
/// ```swift
/// let source = try TreeTableSource(path: "big.sqlite")
/// let rows = source.children(of: source.root)      // one row read: the count
/// source.title(of: rows[0])                         // reads the first page
/// ```
///
/// A snapshot reads the database as it is when a page is first read; ``TreeTableStore`` makes a
/// new snapshot after every change it commits and whenever another writer committed. If the
/// database fails after opening, the affected rows read as empty and ``lastError`` says why.
public struct TreeTableSource: Source {
    /// The database file.
    public let file: String
    /// How nodes are read: the outline convention or generic.
    public let mode: ReadingMode
    /// A name for the data (the file name), the root title in generic mode.
    public let name: String
    let database: DatabaseQueue
    let keys: Keys
    /// Whether `nodes` has the maintained `nchildren` column (version 2); else levels are counted.
    let hasCounts: Bool
    let cache: TreeTableCache
    /// Set while a write transaction reads through this source (misses read in it).
    var transaction: TransactionHandle?

    /// The outline keys, lowercased.
    struct Keys: Sendable {
        var title: [String]
        var children: [String]
        var rows: [String]
    }

    /// The open transaction of a write, for a source read inside it.
    struct TransactionHandle: @unchecked Sendable {
        unowned(unsafe) let db: Database
    }

    /// Thrown by a loader that needs a query while only the lock is held.
    struct NeedsDatabase: Error {}

    /// Opens the tree table at `path` (read-only) without reading the tree.
    /// - Parameters:
    ///   - mode: how to read it; `nil` infers it as ``DocumentSource`` does (recorded in `meta` at write time).
    ///   - keys: the outline convention's keys.
    public init(path: String, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String? = nil) throws(StoreError) {
        let store = try SQLiteTreeStore(path: path, create: false, readOnly: true)
        try self.init(store: store, mode: mode, keys: keys, name: name)
    }

    /// Reads through the connection of `store`.
    public init(store: SQLiteTreeStore, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String? = nil) throws(StoreError) {
        file = store.path
        database = store.database
        self.name = name ?? URL(fileURLWithPath: store.path).lastPathComponent
        let keySet: OutlineKeys
        if case .outline(let given) = mode { keySet = given } else { keySet = keys }
        self.keys = Keys(title: keySet.title.map(Self.lowered), children: keySet.children.map(Self.lowered), rows: keySet.rows.map(Self.lowered))
        do {
            let opened = try store.database.read { db throws -> (Bool, ReadingMode, TreeTableCache.State) in
                let version = try TreeTableLayout.version(db)
                guard version > 0 else {
                    throw StoreError(
                        file: store.path,
                        message: "not a DrillDown tree table (it has no 'nodes' table); to browse an existing database give a schema with 'levels:'")
                }
                guard version <= SQLiteTreeStore.formatVersion else {
                    throw StoreError(file: store.path, message: "tree table version \(version) is newer than this drilldown reads (\(SQLiteTreeStore.formatVersion))")
                }
                let counts = try TreeTableLayout.hasCounts(db)
                var resolved: ReadingMode
                if let mode {
                    resolved = mode
                } else {
                    var outline: Bool?
                    if keySet == .standard, version >= 2, let flag = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'outline'") {
                        outline = flag == "1"
                    }
                    resolved = try (outline ?? TreeTableLayout.followsOutlineConvention(db, keys: keySet)) ? .outline(keySet) : .generic
                }
                let state = try Self.readState(db, counts: counts, file: store.path)
                return (counts, resolved, state)
            }
            hasCounts = opened.0
            self.mode = opened.1
            cache = TreeTableCache(opened.2)
        } catch {
            throw StoreError(file: store.path, error)
        }
    }

    init(copying other: TreeTableSource, state: TreeTableCache.State) {
        file = other.file
        mode = other.mode
        name = other.name
        database = other.database
        keys = other.keys
        hasCounts = other.hasCounts
        cache = TreeTableCache(state)
    }

    /// A new snapshot of the database as it is now (an empty cache), read through `db`.
    func renewed(_ db: Database) throws -> TreeTableSource {
        TreeTableSource(copying: self, state: try Self.readState(db, counts: hasCounts, file: file))
    }

    /// This snapshot with the cached rows of `ids` read again through `db` (after a change that
    /// moved no node and left the root row as it was): two small queries, the rest of the cache kept.
    func refreshing(rowsOf ids: [NodeID], _ db: Database) throws -> TreeTableSource {
        var state = cache.copy()
        for id in ids {
            guard let li = state.levelIndex(containing: id.rawValue) else { continue }
            let k = Int(id.rawValue - state.levels[li].first)
            let key = TreeTableCache.State.pageKey(li, k / TreeTableCache.pageSize)
            guard var rows = state.pages[key], k % TreeTableCache.pageSize < rows.count else { continue }
            var fresh = try Self.readRows(db, counts: hasCounts, sql: "WHERE id = ?", arguments: [rows[k % TreeTableCache.pageSize].node.id])
            try Self.fillMembers(&fresh, db, counts: hasCounts)
            if let row = fresh.first {
                rows[k % TreeTableCache.pageSize] = row
                state.pages[key] = rows
            } else {
                state.pages[key] = nil
            }
        }
        return TreeTableSource(copying: self, state: state)
    }

    /// The root row and `PRAGMA data_version`: a fresh, empty cache.
    static func readState(_ db: Database, counts: Bool, file: String) throws -> TreeTableCache.State {
        let version = try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0
        var roots = try readRows(db, counts: counts, sql: "WHERE parent IS NULL ORDER BY id LIMIT 2", arguments: [])
        guard !roots.isEmpty else { throw StoreError(file: file, message: "nodes table: it is empty (a tree needs a root: a row whose parent is NULL)") }
        guard roots.count == 1 else {
            throw StoreError(file: file, message: "nodes table: nodes \(roots[0].node.id) and \(roots[1].node.id) both have no parent; a tree has one root")
        }
        try fillMembers(&roots, db, counts: counts)
        return TreeTableCache.State(version: version, root: roots[0])
    }

    static func lowered(_ key: String) -> String { String(decoding: key.utf8.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }, as: UTF8.self) }

    var isOutline: Bool {
        if case .outline = mode { return true }
        return false
    }

    // MARK: Source

    public var root: NodeID { NodeID(Int32(0)) }

    /// The ids reserved so far; grows as levels are visited.
    /// - Complexity: O(1)
    public var capacity: Int { cache.withState { Int($0.next) } }

    /// The last error met while reading lazily, if any.
    public var lastError: String? { cache.withState { $0.failure } }

    public var rootTitle: String {
        if isOutline, let t = load(nil, { s, db in try member(of: s.root, keys.title, db) }), !t.kind.isContainer {
            return t.value ?? ""
        }
        if !isOutline, !name.isEmpty { return name }
        return "Root"
    }

    /// - Complexity: O(1) once counted; one row read the first time (plus a page for the node).
    public func children(of id: NodeID) -> NodeRange {
        load(.empty) { s, db in try childRange(of: id.rawValue, &s, db) }
    }

    /// - Complexity: O(log levels visited)
    public func parent(of id: NodeID) -> NodeID? {
        guard id != root else { return nil }
        return cache.withState { s in s.levelIndex(containing: id.rawValue).map { NodeID(s.levels[$0].owner) } }
    }

    /// - Complexity: O(1) when its page is cached; two queries otherwise.
    public func title(of id: NodeID) -> String {
        if id == root { return isOutline ? rootTitle : "" }
        return load("") { s, db in
            guard let row = try row(id.rawValue, &s, db) else { return "" }
            if !isOutline {
                guard let li = s.levelIndex(containing: id.rawValue) else { return "" }
                let level = s.levels[li]
                return level.listKind == .array ? String(id.rawValue - level.first) : row.node.key ?? ""
            }
            if !row.node.kind.isContainer { return row.node.value ?? "" }
            if let t = try member(of: row, keys.title, db), !t.kind.isContainer { return t.value ?? "" }
            return "Untitled"
        }
    }

    public func value(of id: NodeID) -> Scalar? {
        load(nil) { s, db in
            guard let row = try row(id.rawValue, &s, db), !row.node.kind.isContainer else { return nil }
            return Scalar(row.node.kind, row.node.value ?? "")
        }
    }

    public func attributes(of id: NodeID) -> [Attribute] {
        load([]) { s, db in
            guard let row = try row(id.rawValue, &s, db), row.node.kind == .object else { return [] }
            let structural = isOutline ? keys.title + (id == root ? keys.rows : keys.children) : []
            var result: [Attribute] = []
            for m in row.members {
                if isOutline, structural.contains(Self.lowered(m.key ?? "")) { continue }
                if !isOutline, m.kind.isContainer { continue }
                result.append(Attribute(key: m.key ?? "", value: summary(of: m, in: row)))
                if result.count >= 500 { break }
            }
            return result
        }
    }

    public func attribute(_ key: String, of id: NodeID) -> Scalar? {
        load(nil) { s, db in
            guard let row = try row(id.rawValue, &s, db), row.node.kind == .object else { return nil }
            guard let m = try member(of: row, [Self.lowered(key)], db) else { return nil }
            if m.kind == .array, m.count > 0, m.count <= 8, row.smallArrays[m.id] == nil, !row.members.contains(m) {
                var one = [LevelRow(node: m)]
                try Self.fillSmallArrays(&one, db: try need(db), members: [m])
                return summary(of: m, in: one[0])
            }
            return summary(of: m, in: row)
        }
    }

    /// A member's value as a scalar: itself for scalars, a short description for containers (as ``DocumentSource`` gives it).
    func summary(of member: NodeRecord, in row: LevelRow) -> Scalar {
        if !member.kind.isContainer { return Scalar(member.kind, member.value ?? "") }
        let n = member.count
        if member.kind == .array, n <= 8 {
            if n == 0 { return Scalar(.string, "") }
            if let items = row.smallArrays[member.id] { return Scalar(.string, items.joined(separator: ", ")) }
        }
        return Scalar(.string, member.kind == .array ? "\(n) items" : "\(n) entries")
    }

    // MARK: Loading

    /// Runs `body` on the cache: first without the database (cache hits), then, when it needs a
    /// query, again inside a read of the database (or in the open write transaction).
    func load<T>(_ fallback: T, _ body: (inout TreeTableCache.State, Database?) throws -> T) -> T {
        do {
            if let handle = transaction { return try cache.withState { try body(&$0, handle.db) } }
            do {
                return try cache.withState { try body(&$0, nil) }
            } catch is NeedsDatabase {
                return try database.read { db in try cache.withState { try body(&$0, db) } }
            }
        } catch {
            cache.withState { $0.failure = StoreError(file: file, error).description }
            return fallback
        }
    }

    func need(_ db: Database?) throws -> Database {
        guard let db else { throw NeedsDatabase() }
        return db
    }

    /// The stored row shown as `id` (the root row for the root), reading its page when needed.
    func row(_ id: Int32, _ s: inout TreeTableCache.State, _ db: Database?) throws -> LevelRow? {
        if id == 0 { return s.root }
        guard let li = s.levelIndex(containing: id) else { return nil }
        let k = Int(id - s.levels[li].first)
        let page = k / TreeTableCache.pageSize
        let key = TreeTableCache.State.pageKey(li, page)
        if let rows = s.pages[key] { return k % TreeTableCache.pageSize < rows.count ? rows[k % TreeTableCache.pageSize] : nil }
        let db = try need(db)
        var after: (Int64, Int64)?
        if page > 0 {
            guard let boundary = try boundary(li, page - 1, &s, db) else { return nil }
            after = boundary
        }
        let rows = try readPage(list: s.levels[li].list, after: after, db)
        if s.pages.count >= TreeTableCache.maxPages { s.pages.removeAll(keepingCapacity: true) }
        s.pages[key] = rows
        if rows.count == TreeTableCache.pageSize, s.levels[li].boundaries.count == page, let last = rows.last {
            s.levels[li].boundaries.append((last.node.position, last.node.id))
        }
        return k % TreeTableCache.pageSize < rows.count ? rows[k % TreeTableCache.pageSize] : nil
    }

    /// The (position, id) of the last row of page `p` of level `li`: known, or found by stepping
    /// through the index from the last known one (reading positions only), recording each page's.
    func boundary(_ li: Int, _ p: Int, _ s: inout TreeTableCache.State, _ db: Database) throws -> (Int64, Int64)? {
        if p < s.levels[li].boundaries.count { return s.levels[li].boundaries[p] }
        let list = s.levels[li].list
        let cursor: RowCursor
        if let last = s.levels[li].boundaries.last {
            cursor = try GRDB.Row.fetchCursor(
                db, sql: "SELECT position, id FROM nodes WHERE parent = ? AND (position, id) > (?, ?) ORDER BY position, id",
                arguments: [list, last.0, last.1])
        } else {
            cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT position, id FROM nodes WHERE parent = ? ORDER BY position, id", arguments: [list])
        }
        var n = 0
        while let r = try cursor.next() {
            n += 1
            if n == TreeTableCache.pageSize {
                n = 0
                s.levels[li].boundaries.append((r[0], r[1]))
                if s.levels[li].boundaries.count > p { break }
            }
        }
        return p < s.levels[li].boundaries.count ? s.levels[li].boundaries[p] : nil
    }

    /// The children block of visible node `id`, reserving it on first use.
    func childRange(of id: Int32, _ s: inout TreeTableCache.State, _ db: Database?) throws -> NodeRange {
        if let li = s.levelOf[id] {
            guard li >= 0 else { return .empty }
            return NodeRange(s.levels[Int(li)].first, s.levels[Int(li)].first + s.levels[Int(li)].count)
        }
        guard id < s.next, let row = try row(id, &s, db) else { return .empty }
        guard let list = try childList(of: row, isRoot: id == 0, db), list.count > 0 else {
            s.levelOf[id] = -1
            return .empty
        }
        let first = s.next
        let n = Int32(min(list.count, Int(Int32.max - first)))
        s.levels.append(TreeTableCache.Level(owner: id, list: list.id, listKind: list.kind, first: first, count: n))
        s.levelOf[id] = Int32(s.levels.count - 1)
        s.next += n
        return NodeRange(first, first + n)
    }

    /// The stored node whose children are the visible children of `row`, if it has any.
    func childList(of row: LevelRow, isRoot: Bool, _ db: Database?) throws -> NodeRecord? {
        guard isOutline else { return row.node.kind.isContainer ? row.node : nil }
        if isRoot, row.node.kind == .array { return row.node }
        guard let list = try member(of: row, isRoot ? keys.rows : keys.children, db), list.kind == .array else { return nil }
        return list
    }

    /// The first member of `row` whose key is one of the lowercased `keys` (earlier keys win).
    func member(of row: LevelRow, _ keys: [String], _ db: Database?) throws -> NodeRecord? {
        guard row.node.kind == .object else { return nil }
        for key in keys {
            if let m = row.members.first(where: { Self.lowered($0.key ?? "") == key }) { return m }
        }
        guard !row.membersComplete else { return nil }
        let db = try need(db)
        for key in keys {
            let found = try Self.readRows(
                db, counts: hasCounts, sql: "WHERE parent = ? AND key = ? COLLATE NOCASE ORDER BY position, id LIMIT 1",
                arguments: [row.node.id, key])
            if let m = found.first { return m.node }
        }
        return nil
    }

    /// One page of the children of stored node `list`, after `after` (keyset pagination), with members.
    func readPage(list: Int64, after: (Int64, Int64)?, _ db: Database) throws -> [LevelRow] {
        var rows: [LevelRow]
        if let after {
            rows = try Self.readRows(
                db, counts: hasCounts, sql: "WHERE parent = ? AND (position, id) > (?, ?) ORDER BY position, id LIMIT ?",
                arguments: [list, after.0, after.1, TreeTableCache.pageSize])
        } else {
            rows = try Self.readRows(db, counts: hasCounts, sql: "WHERE parent = ? ORDER BY position, id LIMIT ?", arguments: [list, TreeTableCache.pageSize])
        }
        try Self.fillMembers(&rows, db, counts: hasCounts)
        return rows
    }

    /// The columns every read takes, in ``record(_:)``'s order.
    static func columns(counts: Bool) -> String {
        "id, kind, key, value, \(counts ? "nchildren" : "(SELECT count(*) FROM nodes AS c WHERE c.parent = nodes.id)"), position, parent"
    }

    static func record(_ row: GRDB.Row) throws -> NodeRecord {
        let raw: Int64 = row[1]
        guard raw >= 0, raw < Int64(ValueKind.allCases.count), let kind = ValueKind(rawValue: UInt8(raw)) else {
            throw StoreError(file: "", message: "node \(row[0] as Int64) has kind \(raw), which is not a known kind (0–\(ValueKind.allCases.count - 1))")
        }
        return NodeRecord(id: row[0], kind: kind, key: row[2], value: kind.isContainer ? nil : (row[3] as String?) ?? "", count: row[4], position: row[5])
    }

    static func readRows(_ db: Database, counts: Bool, sql: String, arguments: StatementArguments) throws -> [LevelRow] {
        var rows: [LevelRow] = []
        let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT \(columns(counts: counts)) FROM nodes \(sql)", arguments: arguments)
        while let row = try cursor.next() { rows.append(LevelRow(node: try record(row))) }
        return rows
    }

    /// Reads the members of the object rows: one query for all rows of ordinary size, a limited
    /// one for each row with more than ``TreeTableCache/memberLimit`` members; then the elements
    /// of small member arrays.
    static func fillMembers(_ rows: inout [LevelRow], _ db: Database, counts: Bool) throws {
        let objects = rows.indices.filter { rows[$0].node.kind == .object && rows[$0].node.count > 0 }
        let small = objects.filter { rows[$0].node.count <= TreeTableCache.memberLimit }
        if !small.isEmpty {
            var byParent: [Int64: Int] = [:]
            for i in small { byParent[rows[i].node.id] = i }
            let ids = small.map { String(rows[$0].node.id) }.joined(separator: ",")
            let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT \(columns(counts: counts)) FROM nodes WHERE parent IN (\(ids)) ORDER BY parent, position, id")
            while let r = try cursor.next() {
                if let i = byParent[r[6]] { rows[i].members.append(try record(r)) }
            }
        }
        for i in objects where rows[i].node.count > TreeTableCache.memberLimit {
            rows[i].members = try readRows(
                db, counts: counts, sql: "WHERE parent = ? ORDER BY position, id LIMIT ?",
                arguments: [rows[i].node.id, TreeTableCache.memberLimit]).map(\.node)
            rows[i].membersComplete = false
        }
        let arrays = rows.flatMap { $0.members.filter { $0.kind == .array && $0.count > 0 && $0.count <= 8 } }
        if !arrays.isEmpty { try fillSmallArrays(&rows, db: db, members: arrays) }
    }

    /// Reads the elements of the given small member arrays into their rows' ``LevelRow/smallArrays``
    /// (only arrays whose elements are all scalars).
    static func fillSmallArrays(_ rows: inout [LevelRow], db: Database, members: [NodeRecord]) throws {
        let ids = members.map { String($0.id) }.joined(separator: ",")
        var items: [Int64: [String]] = [:]
        var mixed = Set<Int64>()
        let cursor = try GRDB.Row.fetchCursor(db, sql: "SELECT parent, kind, value FROM nodes WHERE parent IN (\(ids)) ORDER BY parent, position, id")
        while let r = try cursor.next() {
            let parent: Int64 = r[0]
            let kind: Int64 = r[1]
            if kind == Int64(ValueKind.object.rawValue) || kind == Int64(ValueKind.array.rawValue) { mixed.insert(parent) }
            items[parent, default: []].append((r[2] as String?) ?? "")
        }
        let wanted = Set(members.map(\.id))
        for i in rows.indices {
            for m in rows[i].members where wanted.contains(m.id) && !mixed.contains(m.id) {
                rows[i].smallArrays[m.id] = items[m.id] ?? []
            }
            if wanted.contains(rows[i].node.id), !mixed.contains(rows[i].node.id) {
                rows[i].smallArrays[rows[i].node.id] = items[rows[i].node.id] ?? []
            }
        }
    }
}
