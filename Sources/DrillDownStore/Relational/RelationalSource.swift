import DrillDownCore
import Foundation
import GRDB

/// A ``Source`` over an existing database, read through a ``RelationalMapping`` (such as the music example's):
/// the root lists the first level's rows, and each row's children are the next level's rows
/// whose parent column holds its key.
///
/// Nothing is read up front. A level's rows are read a page of ``pageSize`` at a time with
/// keyset pagination (`WHERE (order…, key) > (last row of the previous page) ORDER BY … LIMIT`),
/// so paging through a level costs the same at row ten million as at row one; a jump far into
/// a level starts from the nearest page read, or from the end of the level. Each page also
/// counts its rows' children with one grouped query
/// (`SELECT parent, COUNT(*) … WHERE parent IN (…) GROUP BY parent`), so showing a page of rows
/// with their child counts is two queries. Only the first level is counted with `COUNT(*)`.
///
/// ```swift
/// let source = try RelationalSource(path: "music.db", mapping: mapping)
/// let artists = source.children(of: source.root)      // one COUNT(*)
/// source.title(of: artists[0])                         // the first page of artists, and their albums counted
/// source.children(of: artists[0])                      // that artist's albums: no query
/// ```
///
/// Columns other than the title, key and parent are the node's attributes; ``attribute(_:of:)``
/// also answers `kind` with the level's kind, which picks the presentation schema's template.
/// The source is `Sendable`: its cache sits behind a lock, and the database is a
/// ``RelationalDatabase`` (SQLite through a GRDB reader, or PostgreSQL). If the database fails after opening (a disk error, a dropped table),
/// the affected rows read as empty and ``lastError`` says why.
///
/// A source is one snapshot of an editable ``RelationalStore``: the store hands out a new source
/// after each change, made from this one's cache adjusted for the rows the change touched.
/// Pages an older snapshot has not read yet are read from the database as it is now.
public struct RelationalSource: FallibleSource {
    /// The mapping, as given.
    public let mapping: RelationalMapping
    /// The database file, for messages.
    public let file: String
    public let rootTitle: String
    let access: Access
    let levels: [ResolvedLevel]
    let cache: RelationalCache
    /// This snapshot's fields opened as JSON, when a reader was given (``openingJSON(_:)``).
    let embedded: EmbeddedFields?

    /// Rows read per query.
    public static let pageSize = 100

    /// How a source reaches the database: a connection per read, or (inside one of the store's
    /// write transactions, on that transaction's thread only) the transaction's open connection.
    struct Access: @unchecked Sendable {
        var database: (any RelationalDatabase)?
        var open: (any RelationalConnection)?

        func read<T>(_ body: (any RelationalConnection) throws -> T) throws -> T {
            if let open { return try body(open) }
            guard let database else { throw StoreError(file: "", message: "no database connection") }
            return try database.read(body)
        }
    }

    /// Opens the database at `path` read-only and checks `mapping` against it.
    /// - Throws: ``StoreError`` when the file is not a readable database, ``MappingError`` when
    ///   the mapping names a table or column that does not exist, lacks a parent key, or has a cycle.
    public init(path: String, mapping: RelationalMapping, rootTitle: String? = nil) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError(file: path, message: "no such file") }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.label = "DrillDown relational source"
        let queue: DatabaseQueue
        do { queue = try DatabaseQueue(path: path, configuration: configuration) } catch { throw StoreError(file: path, error) }
        try self.init(database: queue, mapping: mapping, file: path, rootTitle: rootTitle)
    }

    /// Reads through an open GRDB connection (a `DatabaseQueue` or `DatabasePool`), after checking `mapping`.
    public init(database: any DatabaseReader, mapping: RelationalMapping, file: String, rootTitle: String? = nil) throws {
        try self.init(
            relational: SQLiteRelationalDatabase(reader: database, collation: SortCollation.collation(ignoring: mapping.sortIgnoring)), mapping: mapping, file: file, rootTitle: rootTitle)
    }

    /// Reads through any ``RelationalDatabase`` (SQLite or PostgreSQL), after checking `mapping`;
    /// `file` names the database in messages.
    package init(relational database: any RelationalDatabase, mapping: RelationalMapping, file: String, rootTitle: String? = nil) throws {
        let levels: [ResolvedLevel]
        do {
            levels = try database.read { db in try mapping.resolve(in: db, file: file) }
        } catch let error as MappingError {
            throw error
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(file: file, error)
        }
        self.init(
            mapping: mapping, file: file, rootTitle: rootTitle ?? URL(fileURLWithPath: file).lastPathComponent,
            access: Access(database: database), levels: levels, state: .init())
    }

    init(
        mapping: RelationalMapping, file: String, rootTitle: String, access: Access, levels: [ResolvedLevel], state: RelationalCache.State,
        json: EmbeddedJSON? = nil
    ) {
        self.mapping = mapping
        self.file = file
        self.rootTitle = rootTitle
        self.access = access
        self.levels = levels
        let cache = RelationalCache(state: state)
        self.cache = cache
        // The fields' ids are reserved in this snapshot's id space, which no row of it gets.
        embedded = json.map { EmbeddedFields(json: $0, writable: true) { n in cache.withState { $0.reserve(n) } } }
    }

    /// The same data read through `access`, with a copy of this snapshot's cache.
    func with(access: Access, state: RelationalCache.State? = nil) -> RelationalSource {
        RelationalSource(
            mapping: mapping, file: file, rootTitle: rootTitle, access: access, levels: levels, state: state ?? cache.copy, json: embedded?.json)
    }

    /// The same snapshot with its text (and `json`/`jsonb`) columns that hold a JSON object or
    /// array opened as subtrees of their rows, read with `json` (see ``presented``).
    public func openingJSON(_ json: EmbeddedJSON) -> RelationalSource {
        RelationalSource(mapping: mapping, file: file, rootTitle: rootTitle, access: access, levels: levels, state: cache.copy, json: json)
    }

    /// The snapshot as every front end reads it: with its JSON fields as child nodes of their rows
    /// (an `EmbeddedFieldSource`) when a reader was given, else itself.
    public var presented: any Source { embedded.map { EmbeddedFieldSource(self, fields: $0) } ?? self }

    public var root: NodeID { NodeID(Int32(0)) }

    /// The ids laid out so far; grows as levels are visited.
    /// - Complexity: O(1)
    public var capacity: Int { cache.withState { $0.capacity } }

    /// The last error met while reading lazily, if any.
    public var lastError: String? { cache.withState { $0.failure } }

    public var readFailures: (count: Int, last: String?) { cache.withState { ($0.failures, $0.failure) } }

    /// Notes a failed read: it reads as empty, and front ends tell it from an empty level.
    func failed(_ error: any Error, _ state: inout RelationalCache.State) {
        state.failure = (error as? StoreError ?? StoreError(file: file, error)).description
        state.failures += 1
    }

    /// - Complexity: O(1) once laid out; the first time, one `COUNT(*)` for the first level, and
    ///   for a row the page read that counted its children (if not read already).
    public func children(of id: NodeID) -> NodeRange {
        cache.withState { state in
            do { return try children(of: id, &state) } catch {
                failed(error, &state)
                return .empty
            }
        }
    }

    func children(of id: NodeID, _ state: inout RelationalCache.State) throws -> NodeRange {
        if let b = state.childBlock(of: id, root: root), let block = state.blocks[b] {
            return NodeRange(block.first, block.first + Int32(block.count))
        }
        var block: RelationalCache.Block
        if id == root {
            let level = levels[0]
            let count = Int(try access.read { db in try db.integer(level.countSQL) })
            block = .init(parentBlock: -1, parentPosition: 0, count: count, depth: 0)
        } else {
            guard let (b, p) = state.locate(id), let depth = state.blocks[b].map({ $0.depth + 1 }), depth < levels.count,
                let row = try row(b, p, &state)
            else { return .empty }
            let count = try row.childCount ?? countChildren(level: levels[depth], parentKey: row.key)
            guard count > 0 else { return .empty }
            block = .init(parentBlock: b, parentPosition: p, count: count, depth: depth, parentKey: row.key)
        }
        let number = state.addBlock(block)
        let first = state.blocks[number]?.first ?? 0
        return NodeRange(first, first + Int32(state.blocks[number]?.count ?? 0))
    }

    func countChildren(level: ResolvedLevel, parentKey: DatabaseValue) throws -> Int {
        Int(try access.read { db in try db.integer(level.countSQL, [parentKey]) })
    }

    public func parent(of id: NodeID) -> NodeID? {
        if id == root { return nil }
        return cache.withState { state in
            guard let (b, _) = state.locate(id), let block = state.blocks[b] else { return nil }
            return block.parentBlock < 0 ? root : state.id(block.parentBlock, block.parentPosition)
        }
    }

    /// - Complexity: O(log blocks) when its page is cached; one page query (and one grouped count) otherwise.
    public func title(of id: NodeID) -> String {
        if id == root { return rootTitle }
        return rowData(id)?.title ?? ""
    }

    /// Rows are records, not scalars: always `nil`.
    public func value(of id: NodeID) -> Scalar? { nil }

    public func attributes(of id: NodeID) -> [Attribute] {
        if id == root { return [] }
        return rowData(id)?.attributes ?? []
    }

    public func attribute(_ key: String, of id: NodeID) -> Scalar? {
        if id == root { return nil }
        return cache.withState { state in
            guard let (b, p) = state.locate(id) else { return nil }
            let found: RelationalCache.RowData?
            do { found = try row(b, p, &state) } catch {
                failed(error, &state)
                return nil
            }
            guard let row = found else { return nil }
            if let found = row.attributes.first(where: { $0.key.caseInsensitiveCompare(key) == .orderedSame }) { return found.value }
            if key.lowercased() == "kind", let depth = state.blocks[b]?.depth { return Scalar(.string, levels[depth].kind) }
            return nil
        }
    }

    /// The row of `id`, reading its page when needed.
    func rowData(_ id: NodeID) -> RelationalCache.RowData? {
        cache.withState { state in
            guard let (b, p) = state.locate(id) else { return nil }
            do { return try row(b, p, &state) } catch {
                failed(error, &state)
                return nil
            }
        }
    }

    /// The row at `path` if this snapshot has read it; reads nothing.
    func cachedRow(at path: TreePath) -> RelationalCache.RowData? {
        cache.withState { state in
            guard let row = state.place(of: path)?.row else { return nil }
            return state.cachedRow(row.block, row.position)
        }
    }

    /// The level (resolved) of the row `id`; `nil` for the root.
    func level(of id: NodeID) -> ResolvedLevel? {
        cache.withState { state in state.locate(id).flatMap { state.blocks[$0.block] }.map { levels[$0.depth] } }
    }

    /// The cached row at `position` of `block`, reading its page when needed.
    func row(_ block: Int, _ position: Int, _ state: inout RelationalCache.State) throws -> RelationalCache.RowData? {
        if let row = state.cachedRow(block, position) { return row }
        guard let b = state.blocks[block], position < b.count else { return nil }
        let page = position / Self.pageSize
        let rows = try readPage(b, page)
        state.store(rows, block: block, page: page)
        return state.cachedRow(block, position)
    }

    /// Reads page `page` of `block`: by keyset after the nearest page read before it, or backwards
    /// from the end of the level when that is nearer; then counts the rows' children in one query.
    func readPage(_ block: RelationalCache.Block, _ page: Int) throws -> [RelationalCache.RowData] {
        let level = levels[block.depth]
        let start = page * Self.pageSize
        let end = min(start + Self.pageSize, block.count)
        guard end > start else { return [] }
        var arguments: [DatabaseValue] = level.filtersByParent ? [block.parentKey ?? .null] : []
        let anchorPage = block.anchors.keys.filter { $0 < page }.max()
        let skipFromAnchor = anchorPage.map { (page - 1 - $0) * Self.pageSize } ?? start
        let skipFromEnd = block.count - end
        var sql = "SELECT \(level.selection) FROM \(level.quotedTable) WHERE \(level.parentFilter)"
        let backwards = skipFromEnd < skipFromAnchor
        if !backwards, let anchorPage, let anchor = block.anchors[anchorPage] {
            let after = Keyset.comparison(level.order, anchor.order, after: true, dialect: level.dialect)
            sql += " AND " + after.sql
            arguments += after.arguments
        }
        sql += " ORDER BY " + Keyset.orderBy(level.order, reversed: backwards) + " LIMIT \(end - start)"
        let skip = backwards ? skipFromEnd : skipFromAnchor
        if skip > 0 { sql += " OFFSET \(skip)" }
        var rows = try access.read { db in try db.rows(sql, arguments).map { Self.makeRow($0, level) } }
        if backwards { rows.reverse() }
        try countChildren(&rows, depth: block.depth)
        return rows
    }

    /// Fills each row's `childCount` with one grouped query over the next level.
    func countChildren(_ rows: inout [RelationalCache.RowData], depth: Int) throws {
        guard depth + 1 < levels.count, !rows.isEmpty else { return }
        let child = levels[depth + 1]
        guard let parent = child.parent else { return }
        let marks = Array(repeating: "?", count: rows.count).joined(separator: ", ")
        let sql = "SELECT \(child.read(parent)), COUNT(*) FROM \(child.quotedTable) WHERE \(ResolvedLevel.quoted(parent)) IN (\(marks)) GROUP BY \(ResolvedLevel.quoted(parent))"
        let counts = try access.read { db in
            var counts: [DatabaseValue: Int] = [:]
            for row in try db.rows(sql, rows.map(\.key)) where row.count == 2 {
                if case .int64(let n) = row[1].storage { counts[row[0]] = Int(n) }
            }
            return counts
        }
        for i in rows.indices { rows[i].childCount = counts[rows[i].key] ?? 0 }
    }

    /// A result row (key, title, attributes, order values) as cached.
    static func makeRow(_ row: [DatabaseValue], _ level: ResolvedLevel) -> RelationalCache.RowData {
        let attributeCount = level.attributeColumns.count
        return RelationalCache.RowData(
            key: row[0],
            title: text(row[1]),
            attributes: level.attributeColumns.indices.map { i in
                Attribute(key: level.attributeColumns[i], value: ColumnValue.scalar(row[i + 2], affinity: level.attributeAffinities[i]))
            },
            order: level.order.indices.map { row[2 + attributeCount + $0] })
    }

    /// A title column's value as text ("Untitled" for NULL).
    static func text(_ value: DatabaseValue) -> String {
        value.isNull ? "Untitled" : ColumnValue.text(value)
    }
}
