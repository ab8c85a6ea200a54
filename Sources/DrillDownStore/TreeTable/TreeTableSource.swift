import DrillDownCore
import Foundation
import GRDB

/// A ``Source`` over a tree table (in an SQLite file, or in PostgreSQL through DrillDownPostgres)
/// that reads only what is shown: opening reads the root row, and each level is read a page at a
/// time through the `(parent, position)` index. The queries come from a ``NodeRowReader``.
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
public struct TreeTableSource: FallibleSource, IndexedSearch {
    /// How nodes are read: the outline convention or generic.
    public let mode: ReadingMode
    /// A name for the data (the file name), the root title in generic mode.
    public let name: String
    /// Where the rows are read.
    let reader: any NodeRowReader
    let keys: Keys
    let cache: TreeTableCache
    /// This snapshot's text values opened as JSON, when a reader was given (``openingJSON(_:)``).
    let embedded: EmbeddedFields?
    /// Set while a write transaction reads through this source (misses read in it).
    var transaction: TransactionHandle?

    /// The outline keys, lowercased.
    struct Keys: Sendable {
        var title: [String]
        var children: [String]
        var rows: [String]
    }

    /// The queries of an open write transaction, for a source read inside it (only while it is open).
    struct TransactionHandle: @unchecked Sendable {
        let queries: any NodeRowQueries
    }

    /// What the rows are in (the database file, or the PostgreSQL table).
    public var file: String { reader.origin }

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
        let keySet: OutlineKeys
        if case .outline(let given) = mode { keySet = given } else { keySet = keys }
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
                let state = try Self.readState(SQLiteNodeRows.Queries(db: db, counts: counts), origin: store.path)
                return (counts, resolved, state)
            }
            self.init(
                reader: SQLiteNodeRows(database: store.database, file: store.path, hasCounts: opened.0), mode: opened.1, keys: keySet,
                name: name ?? URL(fileURLWithPath: store.path).lastPathComponent, state: opened.2)
        } catch {
            throw StoreError(file: store.path, error)
        }
    }

    /// Reads through `reader`, in a resolved `mode`: only the root row now.
    package init(reader: any NodeRowReader, mode: ReadingMode, keys: OutlineKeys, name: String) throws(StoreError) {
        let state: TreeTableCache.State
        do { state = try reader.read { q in try Self.readState(q, origin: reader.origin) } } catch {
            throw (error as? StoreError) ?? StoreError(file: reader.origin, message: reader.describe(error))
        }
        self.init(reader: reader, mode: mode, keys: keys, name: name, state: state)
    }

    init(reader: any NodeRowReader, mode: ReadingMode, keys keySet: OutlineKeys, name: String, state: TreeTableCache.State) {
        self.reader = reader
        self.mode = mode
        self.name = name
        keys = Keys(title: keySet.title.map(Self.lowered), children: keySet.children.map(Self.lowered), rows: keySet.rows.map(Self.lowered))
        cache = TreeTableCache(state)
        embedded = nil
    }

    init(copying other: TreeTableSource, state: TreeTableCache.State, json: EmbeddedJSON? = nil) {
        reader = other.reader
        mode = other.mode
        name = other.name
        keys = other.keys
        let cache = TreeTableCache(state)
        self.cache = cache
        // The values' ids are reserved in this snapshot's id space, which no row of it gets.
        embedded = (json ?? other.embedded?.json).map { json in
            EmbeddedFields(json: json, writable: true, opening: .values) { n in
                cache.withState { (s: inout TreeTableCache.State) -> Int32? in
                    guard n > 0, n <= Int(Int32.max) - Int(s.next) else { return nil }
                    defer { s.next += Int32(n) }
                    return s.next
                }
            }
        }
    }

    /// The same snapshot with its text values that hold a JSON object or array opened as
    /// subtrees, read with `json` (see ``presented``).
    public func openingJSON(_ json: EmbeddedJSON) -> TreeTableSource { TreeTableSource(copying: self, state: cache.copy(), json: json) }

    /// The snapshot as every front end reads it: with its JSON values opened (an
    /// `EmbeddedFieldSource`) when a reader was given, else itself.
    public var presented: any Source { embedded.map { EmbeddedFieldSource(self, fields: $0) } ?? self }

    /// A new snapshot of the data as it is now (an empty cache), read through `q`.
    package func renewed(_ q: any NodeRowQueries) throws -> TreeTableSource {
        TreeTableSource(copying: self, state: try Self.readState(q, origin: file))
    }

    /// The version (`PRAGMA data_version`, a revision) this snapshot was taken at.
    package var version: Int64 { cache.withState { $0.version } }

    /// This snapshot with the cached rows of `ids` read again through `q` (after a change that
    /// moved no node and left the root row as it was): two small queries, the rest of the cache kept.
    /// `version`, when the caller knows it, saves a query.
    package func refreshing(rowsOf ids: [NodeID], _ q: any NodeRowQueries, version: Int64? = nil) throws -> TreeTableSource {
        var state = cache.copy()
        state.version = try version ?? q.version()
        for id in ids {
            guard let li = state.levelIndex(containing: id.rawValue) else { continue }
            let k = Int(id.rawValue - state.levels[li].first)
            let key = TreeTableCache.State.pageKey(li, k / TreeTableCache.pageSize)
            guard var rows = state.pages[key], k % TreeTableCache.pageSize < rows.count else { continue }
            var fresh = try q.row(id: rows[k % TreeTableCache.pageSize].node.id).map { [LevelRow(node: $0)] } ?? []
            try Self.fillMembers(&fresh, q)
            if let row = fresh.first {
                rows[k % TreeTableCache.pageSize] = row
                state.pages[key] = rows
            } else {
                state.pages[key] = nil
            }
        }
        return TreeTableSource(copying: self, state: state)
    }

    /// The root row and the version: a fresh, empty cache.
    static func readState(_ q: any NodeRowQueries, origin: String) throws -> TreeTableCache.State {
        let version = try q.version()
        var roots = try q.roots().map { LevelRow(node: $0) }
        guard !roots.isEmpty else { throw StoreError(file: origin, message: "nodes table: it is empty (a tree needs a root: a row whose parent is NULL)") }
        guard roots.count == 1 else {
            throw StoreError(file: origin, message: "nodes table: nodes \(roots[0].node.id) and \(roots[1].node.id) both have no parent; a tree has one root")
        }
        try fillMembers(&roots, q)
        return TreeTableCache.State(version: version, root: roots[0])
    }

    static func lowered(_ key: String) -> String { String(decoding: key.utf8.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 }, as: UTF8.self) }

    package var isOutline: Bool {
        if case .outline = mode { return true }
        return false
    }

    // MARK: Source

    public var root: NodeID { NodeID(Int32(0)) }

    /// The ids reserved so far; grows as levels are visited.
    /// - Complexity: O(1)
    public var capacity: Int { cache.withState { Int($0.next) } }

    /// The last error met while reading lazily, if any.
    public var lastError: String? { cache.failures.last }

    public var readFailures: (count: Int, last: String?) { cache.failures }

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
                try Self.fillSmallArrays(&one, try need(db), members: [m])
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
    func load<T>(_ fallback: T, _ body: (inout TreeTableCache.State, (any NodeRowQueries)?) throws -> T) -> T {
        do {
            if let handle = transaction { return try cache.withState { try body(&$0, handle.queries) } }
            do {
                return try cache.withState { try body(&$0, nil) }
            } catch is NeedsDatabase {
                return try reader.read { q in try cache.withState { try body(&$0, q) } }
            }
        } catch {
            let message = StoreError(file: file, message: (error as? StoreError)?.message ?? reader.describe(error)).description
            cache.noteFailure(message)
            return fallback
        }
    }

    func need(_ db: (any NodeRowQueries)?) throws -> any NodeRowQueries {
        guard let db else { throw NeedsDatabase() }
        return db
    }

    /// The stored row shown as `id` (the root row for the root), reading its page when needed.
    func row(_ id: Int32, _ s: inout TreeTableCache.State, _ db: (any NodeRowQueries)?) throws -> LevelRow? {
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
    func boundary(_ li: Int, _ p: Int, _ s: inout TreeTableCache.State, _ db: any NodeRowQueries) throws -> (Int64, Int64)? {
        if p < s.levels[li].boundaries.count { return s.levels[li].boundaries[p] }
        let list = s.levels[li].list
        let missing = p + 1 - s.levels[li].boundaries.count
        let keys = try db.keys(of: list, after: s.levels[li].boundaries.last, limit: missing * TreeTableCache.pageSize)
        for k in stride(from: TreeTableCache.pageSize - 1, to: keys.count, by: TreeTableCache.pageSize) {
            s.levels[li].boundaries.append(keys[k])
        }
        return p < s.levels[li].boundaries.count ? s.levels[li].boundaries[p] : nil
    }

    /// The children block of visible node `id`, reserving it on first use.
    func childRange(of id: Int32, _ s: inout TreeTableCache.State, _ db: (any NodeRowQueries)?) throws -> NodeRange {
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
    func childList(of row: LevelRow, isRoot: Bool, _ db: (any NodeRowQueries)?) throws -> NodeRecord? {
        guard isOutline else { return row.node.kind.isContainer ? row.node : nil }
        if isRoot, row.node.kind == .array { return row.node }
        guard let list = try member(of: row, isRoot ? keys.rows : keys.children, db), list.kind == .array else { return nil }
        return list
    }

    /// The first member of `row` whose key is one of the lowercased `keys` (earlier keys win).
    func member(of row: LevelRow, _ keys: [String], _ db: (any NodeRowQueries)?) throws -> NodeRecord? {
        guard row.node.kind == .object else { return nil }
        for key in keys {
            if let m = row.members.first(where: { Self.lowered($0.key ?? "") == key }) { return m }
        }
        guard !row.membersComplete else { return nil }
        let db = try need(db)
        for key in keys {
            if let m = try db.member(of: row.node.id, lowercasedKey: key) { return m }
        }
        return nil
    }

    /// One page of the children of stored node `list`, after `after` (keyset pagination), with members.
    func readPage(list: Int64, after: (Int64, Int64)?, _ db: any NodeRowQueries) throws -> [LevelRow] {
        var rows = try db.children(of: list, after: after, limit: TreeTableCache.pageSize).map { LevelRow(node: $0) }
        try Self.fillMembers(&rows, db)
        return rows
    }

    /// Reads the members of the object rows: one query for all rows of ordinary size, a limited
    /// one for each row with more than ``TreeTableCache/memberLimit`` members; then the elements
    /// of small member arrays.
    static func fillMembers(_ rows: inout [LevelRow], _ db: any NodeRowQueries) throws {
        let objects = rows.indices.filter { rows[$0].node.kind == .object && rows[$0].node.count > 0 }
        let small = objects.filter { rows[$0].node.count <= TreeTableCache.memberLimit }
        if !small.isEmpty {
            var byParent: [Int64: Int] = [:]
            for i in small { byParent[rows[i].node.id] = i }
            for (parent, member) in try db.children(ofAll: small.map { rows[$0].node.id }) {
                if let i = byParent[parent] { rows[i].members.append(member) }
            }
        }
        for i in objects where rows[i].node.count > TreeTableCache.memberLimit {
            rows[i].members = try db.children(of: rows[i].node.id, after: nil, limit: TreeTableCache.memberLimit)
            rows[i].membersComplete = false
        }
        let arrays = rows.flatMap { $0.members.filter { $0.kind == .array && $0.count > 0 && $0.count <= 8 } }
        if !arrays.isEmpty { try fillSmallArrays(&rows, db, members: arrays) }
    }

    /// Reads the elements of the given small member arrays into their rows' ``LevelRow/smallArrays``
    /// (only arrays whose elements are all scalars).
    static func fillSmallArrays(_ rows: inout [LevelRow], _ db: any NodeRowQueries, members: [NodeRecord]) throws {
        var items: [Int64: [String]] = [:]
        var mixed = Set<Int64>()
        for (parent, kind, value) in try db.elements(ofAll: members.map(\.id)) {
            if kind.isContainer { mixed.insert(parent) }
            items[parent, default: []].append(value ?? "")
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

extension TreeTableSource {
    /// In the outline convention, the hits through the reader's text index (PostgreSQL's trigram
    /// index): the candidate rows' paths come from their lineage, each is resolved to its node
    /// in this snapshot and checked with the same rule as a walk (``Source/matches(_:needle:includeValues:)``).
    /// The hits are the first `limit` candidates (in document order, or in storage order when the
    /// reader finds very many), shown in document order; `total` counts every candidate. `nil`
    /// (walk instead) in generic mode or without an index.
    public func indexedFind(_ query: SearchQuery, until isCancelled: () -> Bool) throws(SearchCancelled) -> SearchResult? {
        guard isOutline else { return nil }
        let needle = query.text.lowercased()
        let found: (rows: [Int64], total: Int, lineages: [[(id: Int64, index: Int, parentIsArray: Bool)]])?
        do {
            found = try reader.read { q in
                guard
                    let candidates = try q.outlineCandidates(
                        containing: query.text, titleKeys: keys.title, listKeys: keys.children + keys.rows, values: query.includeValues, limit: query.limit)
                else { return nil }
                return (candidates.rows, candidates.total, try candidates.rows.map { try q.lineage(of: $0) })
            }
        } catch {
            return nil
        }
        guard let found else { return nil }
        var hits: [(path: TreePath, node: NodeID)] = []
        for (row, lineage) in zip(found.rows, found.lineages) {
            if isCancelled() { throw SearchCancelled() }
            let path = TreePath(lineage.dropFirst().filter(\.parentIsArray).map(\.index))
            guard let node = node(at: path), storedID(of: node) == row, matches(node, needle: needle, includeValues: query.includeValues) else { continue }
            hits.append((path, node))
        }
        hits.sort { $0.path.indices.lexicographicallyPrecedes($1.path.indices) }
        return SearchResult(hits: hits.map(\.node), total: max(found.total, hits.count))
    }

    /// The stored row shown as `id`, if it can be read.
    func storedID(of id: NodeID) -> Int64? {
        load(nil) { s, db in try row(id.rawValue, &s, db)?.node.id }
    }
}
