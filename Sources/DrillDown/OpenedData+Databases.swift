import DrillDownFormats
import DrillDownPostgres
import DrillDownStore
import Foundation

extension OpenedData {
    /// A tree table in PostgreSQL, lazily: the root row now, each level a page at a time when shown;
    /// or, when the schema has `levels:`, the database's tables through that mapping.
    static func openPostgres(_ url: String, _ reading: Reading) throws(OpenError) -> OpenedData {
        var location = try postgresLocation(url, table: reading.options.table)
        location.timeout = reading.options.databaseTimeout
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if let mapping = try reading.mapping() {
            let levels: PostgresLevels
            let source: RelationalSource
            do {
                levels = try PostgresLevels(location, mapping: mapping, editable: false)
                source = try levels.source()
            } catch {
                throw OpenError(location.description, "\(error)")
            }
            return OpenedData(
                file: location.description, folder: here, tree: nil, format: nil, database: .postgresLevels(levels),
                presenter: Presenter(source: source.openingJSON(.formats).presented, schema: reading.schema), loadSeconds: reading.seconds)
        }
        let table: PostgresTreeTable
        let source: TreeTableSource
        do {
            table = try PostgresTreeTable(location)
            source = try table.source(mode: reading.mode, keys: reading.keys, name: location.table)
        } catch {
            throw OpenError(location.description, error.description)
        }
        return OpenedData(
            file: location.description, folder: here, tree: nil, format: nil, database: .postgres(table),
            presenter: Presenter(source: source.openingJSON(.formats).presented, schema: reading.schema), loadSeconds: reading.seconds)
    }

    /// The PostgreSQL table a `postgres://` URL names (`table` overriding `?table=`); `postgres://`
    /// alone reads `DATABASE_URL`, else the `PG*` variables.
    public static func postgresLocation(_ url: String, table: String?) throws(OpenError) -> PostgresLocation {
        do {
            let environment = ProcessInfo.processInfo.environment
            let bare = url == "postgres://" || url == "postgresql://"
            var location = try PostgresLocation(url: bare ? (environment["DATABASE_URL"] ?? url) : url, environment: environment)
            if let table { location = try location.naming(table: table) }
            return location
        } catch {
            throw OpenError(url, error.description)
        }
    }

    /// An SQLite database: through the schema's `levels:` when it has them, else as a tree table.
    static func openSQLite(_ file: String, _ reading: Reading) throws(OpenError) -> OpenedData {
        guard let mapping = try reading.mapping() else {
            let source: TreeTableSource
            let store: SQLiteTreeStore
            do {
                store = try SQLiteTreeStore(path: file, create: false, readOnly: true)
                source = try TreeTableSource(store: store, mode: reading.mode, keys: reading.keys, name: URL(fileURLWithPath: file).lastPathComponent)
            } catch {
                throw OpenError(file, error.description)
            }
            return OpenedData(
                file: file, folder: folder(of: file), tree: nil, format: nil, database: .treeTable(store),
                presenter: Presenter(source: source.openingJSON(.formats).presented, schema: reading.schema), loadSeconds: reading.seconds)
        }
        let source: RelationalSource
        do { source = try RelationalSource(path: file, mapping: mapping) } catch { throw OpenError(file, "\(error)") }
        return OpenedData(
            file: file, folder: folder(of: file), tree: nil, format: nil, database: .relational(source),
            presenter: Presenter(source: source.openingJSON(.formats).presented, schema: reading.schema), loadSeconds: reading.seconds)
    }

    /// Reads a whole SQLite tree table, with the document format it was imported from (if recorded).
    public static func readTreeTable(_ path: String) throws(OpenError) -> (store: SQLiteTreeStore, tree: TreeStore, documentFormat: String?) {
        do {
            let store = try SQLiteTreeStore(path: path, readOnly: true)
            return (store, try store.read(), try store.documentFormat())
        } catch {
            throw OpenError(path, error.description)
        }
    }
}
