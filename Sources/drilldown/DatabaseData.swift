import DrillDownCore
import DrillDownFormats
import DrillDownPostgres
import DrillDownStore
import Foundation

/// An SQLite database as a data file: a tree table (any document imported with `convert`), or
/// an existing database whose tables the schema's `levels:` map to levels.
enum DatabaseData {
    /// A tree table (opened read-only), read lazily through a ``TreeTableSource``; edits go row
    /// by row through a ``TreeTableStore``.
    case treeTable(SQLiteTreeStore)
    /// Tables mapped by the schema's `levels:`: read lazily; edited row by row through a ``RelationalStore``.
    case relational(RelationalSource)
    /// A tree table in PostgreSQL, read lazily through a ``TreeTableSource``; edits go row by row
    /// through a ``PostgresTreeStore``.
    case postgres(PostgresTreeTable)
    /// Existing PostgreSQL tables mapped by the schema's `levels:`: read lazily; edited row by row
    /// through a ``RelationalStore``, followed across instances through revision triggers.
    case postgresLevels(PostgresLevels)

    /// Whether `path` is an SQLite database: by its header, or by its extension (`.sqlite`, `.sqlite3`, `.db`).
    static func isDatabase(_ path: String) -> Bool {
        SQLiteFile.isDatabase(atPath: path) || SQLiteFile.hasDatabaseExtension(path)
    }

    /// Reads the tree table at `path`, with the document format it was imported from (if recorded).
    static func readTreeTable(_ path: String) throws -> (store: SQLiteTreeStore, tree: TreeStore, documentFormat: String?) {
        do {
            let store = try SQLiteTreeStore(path: path, readOnly: true)
            return (store, try store.read(), try store.documentFormat())
        } catch {
            throw BadInput(error.description)
        }
    }
}

extension LoadedData {
    /// Opens a tree table in PostgreSQL (`postgres://…`; `postgres://` alone takes `DATABASE_URL`
    /// or the `PG*` variables), lazily: the root row now, each level a page at a time when shown;
    /// or, when the schema has `levels:`, the database's tables through that mapping.
    static func loadPostgres(
        url: String, table: String?, schema: Schema, schemaTree: TreeStore?, schemaFile: String?, titleKey: String?, childrenKey: String?,
        generic: Bool, start: UInt64, timeout: Duration = .seconds(5)
    ) throws -> LoadedData {
        var location = try postgresLocation(url, table: table)
        location.timeout = timeout
        if let mapping = try mapping(schemaTree: schemaTree, schemaFile: schemaFile) {
            let levels: PostgresLevels
            let source: RelationalSource
            do {
                levels = try PostgresLevels(location, mapping: mapping, editable: false)
                source = try levels.source()
            } catch {
                throw BadInput("\(error)")
            }
            return LoadedData(
                file: location.description, folder: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), tree: nil,
                format: nil, database: .postgresLevels(levels), presenter: Presenter(source: source, schema: schema),
                loadSeconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        let keys = outlineKeys(schema: schema, titleKey: titleKey, childrenKey: childrenKey)
        let store: PostgresTreeTable
        let source: TreeTableSource
        do {
            store = try PostgresTreeTable(location)
            source = try store.source(mode: generic ? .generic : nil, keys: keys, name: location.table)
        } catch {
            throw BadInput(error.description)
        }
        return LoadedData(
            file: location.description, folder: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), tree: nil,
            format: nil, database: .postgres(store), presenter: Presenter(source: source, schema: schema),
            loadSeconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// The PostgreSQL table a `postgres://` argument names (with `--table` overriding `?table=`).
    static func postgresLocation(_ url: String, table: String?) throws -> PostgresLocation {
        do {
            let environment = ProcessInfo.processInfo.environment
            let bare = url == "postgres://" || url == "postgresql://"
            var location = try PostgresLocation(url: bare ? (environment["DATABASE_URL"] ?? url) : url, environment: environment)
            if let table { location = try location.naming(table: table) }
            return location
        } catch {
            throw BadInput(error.description)
        }
    }

    /// Loads an SQLite database: through the schema's `levels:` when it has them, else as a tree table.
    static func loadDatabase(
        file: String, schema: Schema, schemaTree: TreeStore?, schemaFile: String?, titleKey: String?, childrenKey: String?,
        generic: Bool, start: UInt64
    ) throws -> LoadedData {
        let mapping = try mapping(schemaTree: schemaTree, schemaFile: schemaFile)
        let seconds = { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        guard let mapping else {
            let keys = outlineKeys(schema: schema, titleKey: titleKey, childrenKey: childrenKey)
            let source: TreeTableSource
            let store: SQLiteTreeStore
            do {
                store = try SQLiteTreeStore(path: file, create: false, readOnly: true)
                source = try TreeTableSource(
                    store: store, mode: generic ? .generic : nil, keys: keys, name: URL(fileURLWithPath: file).lastPathComponent)
            } catch {
                throw BadInput(error.description)
            }
            return LoadedData(
                file: file, folder: URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL, tree: nil, format: nil,
                database: .treeTable(store), presenter: Presenter(source: source, schema: schema), loadSeconds: seconds())
        }
        let source: RelationalSource
        do { source = try RelationalSource(path: file, mapping: mapping) } catch { throw BadInput("\(error)") }
        return LoadedData(
            file: file, folder: URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL, tree: nil, format: nil,
            database: .relational(source), presenter: Presenter(source: source, schema: schema), loadSeconds: seconds())
    }

    /// The schema's `levels:` mapping, when it has one.
    static func mapping(schemaTree: TreeStore?, schemaFile: String?) throws -> RelationalMapping? {
        do { return try schemaTree.flatMap { tree throws(MappingError) in try RelationalMapping(schema: tree, file: schemaFile ?? "schema") } } catch {
            throw BadInput(error.description)
        }
    }

    /// A loaded document tree (from a file or a tree table) with the source its options ask for.
    init(
        file: String, tree: TreeStore, format: DocumentFormat?, database: DatabaseData?, schema: Schema, titleKey: String?,
        childrenKey: String?, generic: Bool, seconds: Double
    ) {
        let keys = Self.outlineKeys(schema: schema, titleKey: titleKey, childrenKey: childrenKey)
        let name = URL(fileURLWithPath: file).lastPathComponent
        let source = DocumentSource(tree: tree, mode: generic ? .generic : nil, keys: keys, name: name)
        let folder = URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL
        self.init(
            file: file, folder: folder, tree: tree, format: format, database: database,
            presenter: Presenter(source: source, schema: schema), loadSeconds: seconds)
    }

    /// The outline convention's keys: the flags' and the schema's first, then the standard ones.
    static func outlineKeys(schema: Schema, titleKey: String?, childrenKey: String?) -> OutlineKeys {
        OutlineKeys.standard.preferring(
            title: (titleKey.map { [$0] } ?? []) + schema.titleKeys,
            children: (childrenKey.map { [$0] } ?? []) + schema.childrenKeys)
    }

    /// How the data is stored, for messages and `stats`: the document format, `sqlite` or `sqlite-relational`.
    var formatName: String {
        switch database {
        case .treeTable: "sqlite"
        case .relational: "sqlite-relational"
        case .postgres: "postgres"
        case .postgresLevels: "postgres-relational"
        case nil: format?.rawValue ?? "unknown"
        }
    }

    /// The data opened for editing through the core (a document, or a tree table read whole).
    func editableDocument() throws -> EditableDocument {
        if let lazy = source as? LazyJSONSource {
            let size = lazy.statistics.fileBytes
            throw BadInput(
                "\(file): indexed lazily (\(size / 1_048_576) MiB, read a level at a time), so it is read-only; to edit it, read it whole with --index full (memory about twice the file)")
        }
        guard let source = source as? DocumentSource else {
            throw BadInput("\(file): a database read through the schema's levels is edited through its tables, not as a document")
        }
        return EditableDocument(source: source, schema: presenter.schema)
    }

    /// The store every editor goes through: a relational database's tables or a tree table
    /// (each step committed row by row by the store), else the document in memory (saved by the
    /// caller after each step).
    /// `readOnly` (PostgreSQL): a store that is only read, which never upgrades the table.
    func editingStore(listen: Bool = false, readOnly: Bool = false) throws -> any EditingStore {
        switch database {
        case .postgres(let table):
            do {
                return try PostgresTreeStore(
                    table.location, mode: (source as? TreeTableSource)?.mode, name: table.location.table, schema: presenter.schema, listen: listen,
                    upgrading: !readOnly)
            } catch {
                throw BadInput(error.description)
            }
        case .postgresLevels(let levels):
            do {
                return try PostgresLevels(levels.location, mapping: levels.mapping, editable: !readOnly, listen: listen).store()
            } catch {
                throw BadInput("\(error)")
            }
        case .relational(let source):
            do {
                return try RelationalStore(path: file, mapping: source.mapping, rootTitle: source.rootTitle)
            } catch {
                throw BadInput("\(error)")
            }
        case .treeTable(let table):
            if let source = source as? TreeTableSource {
                do {
                    return try TreeTableStore(path: table.path, mode: source.mode, name: source.name, schema: presenter.schema)
                } catch {
                    throw BadInput(error.description)
                }
            }
        case nil:
            break
        }
        return try editableDocument()
    }

    /// The schema's actions (and control bindings), ready to run.
    func actionSet() throws -> ActionSet {
        do { return try ActionSet(schema: presenter.schema) } catch { throw BadInput("\(file): \(error.description)") }
    }

    /// Writes an edited tree back where it came from: the document atomically in its own format,
    /// or the tree table in one transaction. A relational store commits each step itself.
    func save(_ tree: TreeStore) throws {
        switch database {
        case .treeTable(let store):
            do { try SQLiteTreeStore(path: store.path, create: false).write(tree) } catch { throw BadInput(error.description) }
        case .relational, .postgresLevels:
            throw BadInput("\(file): a database read through the schema's levels is written row by row by its store")
        case .postgres:
            throw BadInput("\(file): a PostgreSQL tree table is written row by row by its store")
        case nil:
            guard let format else { throw BadInput("\(file): unknown format") }
            do { try DocumentWriter.write(tree, to: file, format: format) } catch { throw BadInput(error.description) }
        }
    }
}
