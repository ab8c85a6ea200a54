import DrillDownFormats
import DrillDownPostgres
import DrillDownStore
import Foundation

/// Data opened by ``DrillDown/open(_:options:)``: its `Source` and `Presenter`, where it
/// lives (a document file or a database), and the way to edit it (``editingStore(listen:readOnly:)``,
/// ``model(listen:readOnly:)``).
///
/// ```swift
/// let data = try DrillDown.open("Settings.plist")
/// for row in data.presenter.rows(of: data.source.root) { print(row.title) }
/// ```
public struct OpenedData: Sendable {
    /// The file or URL as given (a `postgres://` URL without its password).
    public var file: String
    /// The folder images are served from.
    public var folder: URL
    /// The document tree; `nil` for a database or a lazily indexed file.
    public var tree: TreeStore?
    /// The format it was read in; `nil` for a database (see ``database``).
    public var format: DocumentFormat?
    /// The database the data lives in, when it is one.
    public var database: Database?
    /// Schema + source.
    public var presenter: Presenter
    /// Seconds spent reading and parsing.
    public var loadSeconds: Double
    /// A document file's version as read, for writing changes back by patching its text, under its
    /// lock, never over a newer version (group commit); `nil` for a database.
    public var documentFile: DocumentFile?
    /// The document file's lock, held from before it was read (``OpenOptions/holdsFileLock``).
    public var fileLock: FileLock?

    /// The data as read.
    public var source: any Source { presenter.source }
    /// The store's own source beneath the opened JSON values of a database or a lazily indexed
    /// file (a `LazyJSONSource`); ``source`` otherwise.
    public var storeSource: any Source { (source as? EmbeddedFieldSource)?.base ?? source }

    /// A database as data: read lazily, edited row by row.
    public enum Database: Sendable {
        /// An SQLite tree table (opened read-only), read through a `TreeTableSource`; edited
        /// through a `TreeTableStore`.
        case treeTable(SQLiteTreeStore)
        /// SQLite tables mapped by the schema's `levels:`; edited through a `RelationalStore`.
        case relational(RelationalSource)
        /// A PostgreSQL tree table, read through a `TreeTableSource`; edited through a `PostgresTreeStore`.
        case postgres(PostgresTreeTable)
        /// PostgreSQL tables mapped by the schema's `levels:`; edited through a `RelationalStore`,
        /// followed across instances through revision triggers.
        case postgresLevels(PostgresLevels)
    }

    /// How the data is stored, for messages and statistics: the document format, `sqlite`,
    /// `sqlite-relational`, `postgres` or `postgres-relational`.
    public var formatName: String {
        switch database {
        case .treeTable: "sqlite"
        case .relational: "sqlite-relational"
        case .postgres: "postgres"
        case .postgresLevels: "postgres-relational"
        case nil: format?.rawValue ?? "unknown"
        }
    }

    /// Resolves a user-written path (a TreePath such as `3.0`, or titles such as `Item 4/Screen G`);
    /// `nil` is the root.
    public func resolve(_ path: String?) throws(OpenError) -> NodeID {
        guard let path else { return source.root }
        do { return try source.resolve(path) } catch { throw OpenError(file, "\(file): \(error.description)") }
    }

    /// Whether the database answers: `nil` when it does (or the data is not in a server), else why
    /// not. Blocks while it asks; call it off Swift's cooperative threads.
    public var readiness: (@Sendable () -> String?)? {
        switch database {
        case .postgres(let table): table.ping
        case .postgresLevels(let levels): levels.ping
        default: nil
        }
    }

    /// Whether `path` is an SQLite database: by its header, or by its extension (`.sqlite`, `.sqlite3`, `.db`).
    public static func isDatabase(_ path: String) -> Bool {
        SQLiteFile.isDatabase(atPath: path) || SQLiteFile.hasDatabaseExtension(path)
    }

    /// The schema that goes with `file` when none is named: `music.schema.yaml` (or `.yml`,
    /// `.json`) beside `music.sqlite`, so a database that needs `levels:` opens by its name alone.
    public static func schemaBeside(_ file: String) -> String? {
        let name = (file as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        guard !stem.isEmpty, stem != name else { return nil }
        let folder = (file as NSString).deletingLastPathComponent
        for ext in ["yaml", "yml", "json"] {
            let candidate = folder.isEmpty ? "\(stem).schema.\(ext)" : "\(folder)/\(stem).schema.\(ext)"
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue { return candidate }
        }
        return nil
    }

    /// The outline convention's keys: the options' and the schema's first, then the standard ones.
    static func outlineKeys(schema: Schema, titleKey: String?, childrenKey: String?) -> OutlineKeys {
        OutlineKeys.standard.preferring(
            title: (titleKey.map { [$0] } ?? []) + schema.titleKeys,
            children: (childrenKey.map { [$0] } ?? []) + schema.childrenKeys)
    }

    /// What one ``DrillDown/open(_:options:)`` reads with: the options, the schema as read, and when it started.
    struct Reading {
        var options: OpenOptions
        var schema: Schema
        var schemaTree: TreeStore?
        var schemaFile: String?
        var start: UInt64

        var keys: OutlineKeys { OpenedData.outlineKeys(schema: schema, titleKey: options.titleKey, childrenKey: options.childrenKey) }
        var mode: ReadingMode? { options.generic ? .generic : nil }
        var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

        /// The schema's `levels:` mapping, when it has one.
        func mapping() throws(OpenError) -> RelationalMapping? {
            guard let schemaTree else { return nil }
            let file = schemaFile ?? "schema"
            do { return try RelationalMapping(schema: schemaTree, file: file)?.sorted(by: schema) } catch { throw OpenError(file, error.description) }
        }
    }
}
