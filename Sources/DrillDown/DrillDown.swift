@_exported import DrillDownCore
import DrillDownFormats
import DrillDownPostgres
import Foundation

/// Opens data for browsing and editing, whatever holds it: a document file (JSON, YAML, property
/// lists), an SQLite tree table or existing tables mapped by a schema's `levels:`, or a PostgreSQL
/// tree table or mapping (`postgres://…`). The command-line tool, the web app and the terminal UI
/// all open their data here.
///
/// ```swift
/// import DrillDown
///
/// let data = try DrillDown.open("music.sqlite", options: OpenOptions(schemaFile: "music.schema.yaml"))
/// let model = try data.model()                   // edits commit row by row
/// try await model.apply(.updateTitle([0], title: "Miles Davis"))
/// ```
public enum DrillDown {
    /// Opens `pathOrURL`: a `postgres://` URL (`postgres://` alone reads `DATABASE_URL` or the
    /// `PG*` variables), an SQLite database (by its header or extension), or a document, read whole
    /// or, for a large JSON file, indexed lazily (see ``IndexMode``).
    ///
    /// A database is read lazily: the first level now, each further one a page at a time.
    /// - Throws: ``OpenError`` naming the file when it cannot be read, or its schema or mapping is wrong.
    /// - Complexity: O(n) in the document's size when read whole; O(1) levels for a database.
    public static func open(_ pathOrURL: String, options: OpenOptions = OpenOptions()) throws(OpenError) -> OpenedData {
        let schemaFile = options.schemaFile ?? (options.findsSchemaBeside ? OpenedData.schemaBeside(pathOrURL) : nil)
        var schema = Schema()
        var schemaTree: TreeStore?
        if let loaded = options.schema {
            (schema, schemaTree) = (loaded.schema, loaded.tree)
        } else if let schemaFile {
            do {
                let loaded = try SchemaFile(contentsOf: schemaFile)
                (schema, schemaTree) = (loaded.schema, loaded.tree)
            } catch {
                throw OpenError(schemaFile, "\(error)")
            }
        }
        let reading = OpenedData.Reading(
            options: options, schema: schema, schemaTree: schemaTree, schemaFile: schemaFile,
            start: DispatchTime.now().uptimeNanoseconds)
        if PostgresLocation.isURL(pathOrURL) { return try OpenedData.openPostgres(pathOrURL, reading) }
        if options.format == nil, OpenedData.isDatabase(pathOrURL) { return try OpenedData.openSQLite(pathOrURL, reading) }
        // Locked before it is read, when asked; a file that cannot be locked is refused when read.
        let lock = options.holdsFileLock ? try? FileLock(pathOrURL) : nil
        if options.index != .full, var lazy = try OpenedData.openLazily(pathOrURL, reading) {
            lazy.fileLock = lock
            return lazy
        }
        var document = try OpenedData.openDocument(pathOrURL, reading)
        document.fileLock = lock
        return document
    }
}
