import ArgumentParser
import DrillDownCore
import DrillDownFormats
import DrillDownPostgres
import Foundation

/// How to read a data file: shared by every command that reads data, with or without a FILE argument.
struct ReadingOptions: ParsableArguments {
    @Option(name: .long, help: "A presentation schema (YAML or JSON): per-kind titles, subtitles, images, controls.")
    var schema: String?

    @Option(name: .long, help: "The key that holds a row's title (outline convention; default Title, then name).")
    var titleKey: String?

    @Option(name: .long, help: "The key that holds a row's children (outline convention; default Children, then items).")
    var childrenKey: String?

    @Flag(name: .long, help: "Browse the document generically, like a JSON viewer, even if it follows the outline convention.")
    var generic = false

    @Option(name: .long, help: "The input format when content and extension are not enough: json, yaml, plist, bplist, openstep.")
    var format: DocumentFormat?

    @Option(name: .long, help: ArgumentHelp(ExpansionLimitOption.help, valueName: "factor"))
    var expansionLimit: Int = ExpansionLimit.default.factor

    @Option(name: .long, help: "With a postgres:// URL: the tree table to read (default: the URL's ?table=, else drilldown).")
    var table: String?

    @Option(name: .long, help: ArgumentHelp(IndexChoice.help, valueName: "auto|full|lazy"))
    var index: IndexChoice = .auto

    @Option(name: .long, help: ArgumentHelp(
        "With a postgres:// URL: the most seconds one database call may take (waiting for a connection, connecting, a query, the commit); a request that runs out of time answers 503.",
        valueName: "seconds"))
    var dbTimeout: Double = 5

    func validate() throws {
        guard dbTimeout.isFinite, (0.1 ... 3600).contains(dbTimeout) else { throw ValidationError("--db-timeout must be between 0.1 and 3600 seconds.") }
    }

    /// Loads `file` with these options; `schemaFile` stands in when no `--schema` was given, and
    /// else a schema next to the file named after it (``LoadedData/schemaBeside(_:)``).
    func load(_ file: String, defaultSchema schemaFile: String? = nil) throws -> LoadedData {
        let loaded = try LoadedData.load(
            file: file, schemaFile: schema ?? schemaFile ?? LoadedData.schemaBeside(file), titleKey: titleKey, childrenKey: childrenKey,
            generic: generic,
            format: format, expansionLimit: ExpansionLimit(factor: expansionLimit), table: table, index: index,
            dbTimeout: .milliseconds(Int64(dbTimeout * 1000)))
        LoadedData.opened.withLock { $0 = loaded.source as? any FallibleSource }
        return loaded
    }
}

/// The data file and how to read it.
struct DataOptions: ParsableArguments {
    @Argument(
        help: "A property list (XML, binary or OpenStep), JSON or YAML file, an SQLite database (a tree table, or tables mapped by the schema's levels:), or a PostgreSQL tree table (postgres://user@host:port/db?table=NAME).",
        completion: .file())
    var file: String

    @OptionGroup var reading: ReadingOptions

    /// Loads the file (and schema) into a presenter.
    func load() throws -> LoadedData { try reading.load(file) }
}

extension DocumentFormat: ExpressibleByArgument {}

/// `--index`: whether a JSON file is read whole into memory or indexed level by level as it is visited.
enum IndexChoice: String, ExpressibleByArgument, Sendable {
    /// Lazily above ``lazyThreshold`` bytes, whole below.
    case auto
    /// Always read whole (editable, searched through an index; memory about 2× the file).
    case full
    /// Always lazily (read-only; first screen after one scan of the top level).
    case lazy

    /// The file size from which `auto` indexes a JSON file lazily: above it a full read no longer
    /// opens within 2 s, and its store (about 1.5× the file) no longer fits 1.2× the file.
    static let lazyThreshold = 256 << 20

    static let help = """
        How a JSON file is read: full (all of it into memory: editable), lazy (mapped, each level indexed when first \
        visited: read-only, search walks the file) or auto (lazy from \(lazyThreshold >> 20) MiB).
        """
}

/// The `--expansion-limit` option's help, shared by every command that reads documents.
enum ExpansionLimitOption {
    static let help = """
        How far YAML aliases and shared binary property-list objects may expand a document: nodes and bytes of text \
        per input byte (at least \(ExpansionLimit.floorNodes) nodes and \(ExpansionLimit.floorTextBytes) bytes).
        """
}

/// A data file loaded and ready for every front end.
struct LoadedData {
    /// The lazily read source the command opened, when it can fail a read (a database): the
    /// command's output is refused (exit 1) if one did.
    static let opened = Opened()

    /// A lock-protected slot (Mutex needs macOS 15; this package supports 14).
    final class Opened: @unchecked Sendable {
        private let lock = NSLock()
        private var source: (any FallibleSource)?

        func withLock<T>(_ body: (inout (any FallibleSource)?) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(&source)
        }
    }

    /// The file as given.
    var file: String
    /// The folder images are served from.
    var folder: URL
    /// The document tree; `nil` for a relational database, which is read lazily.
    var tree: TreeStore?
    /// The format it was read in; `nil` for an SQLite database (see ``database``).
    var format: DocumentFormat?
    /// The SQLite database the data lives in, when it is one.
    var database: DatabaseData?
    /// Schema + source.
    var presenter: Presenter
    /// Seconds spent reading and parsing.
    var loadSeconds: Double
    /// A document file's version as read, for writing changes back by patching its text, under its
    /// lock, never over a newer version; `nil` for a database.
    var documentFile: DocumentFile? = nil

    var source: any Source { presenter.source }

    static func load(
        file: String, schemaFile: String?, titleKey: String?, childrenKey: String?, generic: Bool, format: DocumentFormat?,
        expansionLimit: ExpansionLimit = .default, table: String? = nil, index: IndexChoice = .auto, dbTimeout: Duration = .seconds(5)
    ) throws -> LoadedData {
        var schema = Schema()
        var schemaTree: TreeStore?
        if let schemaFile {
            let loaded: SchemaFile
            do { loaded = try SchemaFile(contentsOf: schemaFile) } catch { throw BadInput("\(error)") }
            schema = loaded.schema
            schemaTree = loaded.tree
        }
        let start = DispatchTime.now().uptimeNanoseconds
        if PostgresLocation.isURL(file) {
            return try loadPostgres(
                url: file, table: table, schema: schema, schemaTree: schemaTree, schemaFile: schemaFile, titleKey: titleKey,
                childrenKey: childrenKey, generic: generic, start: start, timeout: dbTimeout)
        }
        if format == nil, DatabaseData.isDatabase(file) {
            return try loadDatabase(
                file: file, schema: schema, schemaTree: schemaTree, schemaFile: schemaFile, titleKey: titleKey,
                childrenKey: childrenKey, generic: generic, start: start)
        }
        if index != .full, let lazy = try loadLazily(
            file: file, format: format, index: index, schema: schema, titleKey: titleKey, childrenKey: childrenKey, generic: generic, start: start)
        {
            return lazy
        }
        let read: DocumentFile
        do {
            read = try DocumentFile.read(file, format: format, expansionLimit: expansionLimit)
        } catch {
            throw BadInput(error.description)
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var loaded = LoadedData(
            file: file, tree: read.tree, format: read.format, database: nil, schema: schema, titleKey: titleKey,
            childrenKey: childrenKey, generic: generic, seconds: seconds)
        loaded.documentFile = read
        return loaded
    }

    /// `file` indexed lazily (``LazyJSONSource``) when `index` asks for it, or when it is a JSON
    /// file of at least ``IndexChoice/lazyThreshold`` bytes; `nil` to read it whole.
    static func loadLazily(
        file: String, format: DocumentFormat?, index: IndexChoice, schema: Schema, titleKey: String?, childrenKey: String?,
        generic: Bool, start: UInt64
    ) throws -> LoadedData? {
        // The file a symbolic link names is measured, not the link.
        guard let status = FileStatus(file), status.isRegular else { return nil }
        guard index == .lazy || status.bytes >= IndexChoice.lazyThreshold else { return nil }
        let chosen: DocumentFormat
        if let format {
            chosen = format
        } else {
            guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
            let head = [UInt8]((try? handle.read(upToCount: 4096)) ?? Data())
            try? handle.close()
            chosen = DocumentFormat.detect(head, fileExtension: URL(fileURLWithPath: file).pathExtension)
        }
        guard chosen == .json else {
            if index == .lazy { throw BadInput("\(file): --index lazy reads JSON only; this file is \(chosen.rawValue)") }
            return nil
        }
        let keys = outlineKeys(schema: schema, titleKey: titleKey, childrenKey: childrenKey)
        let source: LazyJSONSource
        do {
            source = try LazyJSONSource(path: file, mode: generic ? .generic : nil, keys: keys, name: URL(fileURLWithPath: file).lastPathComponent)
        } catch {
            throw BadInput(error.description)
        }
        return LoadedData(
            file: file, folder: URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL, tree: nil, format: .json,
            database: nil, presenter: Presenter(source: source, schema: schema),
            loadSeconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }

    /// The schema that goes with `file` when none is named: `music.schema.yaml` (or `.yml`,
    /// `.json`) beside `music.sqlite`, so a database that needs `levels:` opens by its name alone.
    static func schemaBeside(_ file: String) -> String? {
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

    /// Resolves a user-written PATH (TreePath or titles) or fails with exit status 1.
    func resolve(_ path: String?) throws -> NodeID {
        guard let path else { return source.root }
        do { return try source.resolve(path) } catch { throw BadInput("\(file): \(error.description)") }
    }
}
