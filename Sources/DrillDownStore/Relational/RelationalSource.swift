import DrillDownCore
import Foundation
import GRDB

/// A ``Source`` over an existing database, read through a ``RelationalMapping`` (seed 001):
/// the root lists the first level's rows, and each row's children are the next level's rows
/// whose parent column holds its key.
///
/// Nothing is read up front. Asking for a node's children counts them (one `COUNT(*)` with the
/// parent's key) and reserves a block of ids for them, so a level's children are a contiguous
/// id range as ``Source`` requires and ``capacity`` grows as levels are visited. Titles and
/// attributes are read a page of ``pageSize`` rows at a time (`ORDER BY … LIMIT ? OFFSET ?`)
/// when first asked for and cached, so showing the first rows of a level of ten million rows
/// reads one page.
///
/// ```swift
/// let source = try RelationalSource(path: "music.db", mapping: mapping)
/// let artists = source.children(of: source.root)      // one COUNT(*)
/// source.title(of: artists[0])                         // reads the first page of artists
/// source.children(of: artists[0])                      // that artist's albums, counted
/// ```
///
/// Columns other than the title, key and parent are the node's attributes; ``attribute(_:of:)``
/// also answers `kind` with the level's kind, which picks the presentation schema's template.
/// The source is `Sendable`: its cache sits behind a lock, and the database connection is a
/// GRDB `DatabaseReader`. If the database fails after opening (a disk error, a dropped table),
/// the affected rows read as empty and ``lastError`` says why.
public struct RelationalSource: Source {
    /// The mapping, as given.
    public let mapping: RelationalMapping
    /// The database file, for messages.
    public let file: String
    public let rootTitle: String
    let database: any DatabaseReader
    let levels: [ResolvedLevel]
    let cache: RelationalCache

    /// Rows read per query.
    public static let pageSize = 100

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
        self.mapping = mapping
        self.file = file
        self.database = database
        self.rootTitle = rootTitle ?? URL(fileURLWithPath: file).lastPathComponent
        do {
            levels = try database.read { db in try mapping.resolve(in: db, file: file) }
        } catch let error as MappingError {
            throw error
        } catch {
            throw StoreError(file: file, error)
        }
        cache = RelationalCache()
    }

    public var root: NodeID { NodeID(Int32(0)) }

    /// The ids reserved so far; grows as levels are visited.
    /// - Complexity: O(1)
    public var capacity: Int { cache.withState { $0.count } }

    /// The last error met while reading lazily, if any.
    public var lastError: String? { cache.withState { $0.failure } }

    /// - Complexity: O(1) once counted; one `COUNT(*)` query the first time (plus a page read for the parent's key).
    public func children(of id: NodeID) -> NodeRange {
        cache.withState { state in
            if let known = state.children(of: id) { return known }
            let depth = Int(state.levels[id.index]) + 1
            guard depth < levels.count else {
                state.setChildren(of: id, first: 0, count: 0)
                return .empty
            }
            let level = levels[depth]
            do {
                var arguments: StatementArguments = []
                if level.filtersByParent {
                    guard let key = try row(id, &state)?.key else { return .empty }
                    arguments = [key]
                }
                let count = try database.read { db in try Int.fetchOne(db, sql: level.countSQL, arguments: arguments) ?? 0 }
                return state.reserve(count, under: id, depth: depth)
            } catch {
                state.failure = StoreError(file: file, error).description
                return .empty
            }
        }
    }

    public func parent(of id: NodeID) -> NodeID? {
        cache.withState { state in
            let p = state.parents[id.index]
            return p < 0 ? nil : NodeID(p)
        }
    }

    /// - Complexity: O(1) when its page is cached; one page query otherwise.
    public func title(of id: NodeID) -> String {
        if id == root { return rootTitle }
        return cache.withState { state in (try? row(id, &state))??.title ?? "" }
    }

    /// Rows are records, not scalars: always `nil`.
    public func value(of id: NodeID) -> Scalar? { nil }

    public func attributes(of id: NodeID) -> [Attribute] {
        if id == root { return [] }
        return cache.withState { state in (try? row(id, &state))??.attributes ?? [] }
    }

    public func attribute(_ key: String, of id: NodeID) -> Scalar? {
        if id == root { return nil }
        return cache.withState { state in
            guard let row = (try? row(id, &state)) ?? nil else { return nil }
            if let found = row.attributes.first(where: { $0.key.caseInsensitiveCompare(key) == .orderedSame }) { return found.value }
            if key.lowercased() == "kind" { return Scalar(.string, levels[Int(state.levels[id.index])].kind) }
            return nil
        }
    }

    /// The cached row of `id`, reading its page when needed (and its ancestors' pages for the parent keys).
    func row(_ id: NodeID, _ state: inout RelationalCache.State) throws -> RelationalCache.RowData? {
        let p = state.parents[id.index]
        guard p >= 0 else { return nil }
        let position = Int(id.rawValue - state.firstChild[Int(p)])
        let page = position / Self.pageSize
        if let rows = state.page(p, page) { return position % Self.pageSize < rows.count ? rows[position % Self.pageSize] : nil }
        let level = levels[Int(state.levels[id.index])]
        var arguments: StatementArguments = []
        if level.filtersByParent {
            guard let key = try row(NodeID(p), &state)?.key else { return nil }
            arguments = [key]
        }
        _ = arguments.append(contentsOf: [Self.pageSize, page * Self.pageSize])
        let rows = try database.read { db in
            try Row.fetchAll(db, sql: level.pageSQL, arguments: arguments).map { row in
                RelationalCache.RowData(
                    key: row[0] as DatabaseValue,
                    title: Self.text(row[1] as DatabaseValue),
                    attributes: level.attributeColumns.indices.map { i in
                        Attribute(key: level.attributeColumns[i], value: Self.scalar(row[i + 2] as DatabaseValue))
                    })
            }
        }
        state.store(rows, parent: p, page: page)
        return position % Self.pageSize < rows.count ? rows[position % Self.pageSize] : nil
    }

    /// A column value as a typed scalar: integers, reals, text, blobs as base64 data, NULL as null.
    static func scalar(_ value: DatabaseValue) -> Scalar {
        switch value.storage {
        case .null: Scalar(.null, "")
        case .int64(let i): Scalar(.integer, String(i))
        case .double(let d): Scalar(.real, String(d))
        case .string(let s): Scalar(.string, s)
        case .blob(let data): Scalar(.data, data.base64EncodedString())
        }
    }

    /// A title column's value as text ("Untitled" for NULL).
    static func text(_ value: DatabaseValue) -> String {
        value.isNull ? "Untitled" : scalar(value).text
    }
}
