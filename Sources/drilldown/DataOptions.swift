import ArgumentParser
import DrillDown
import DrillDownFormats
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

    @Option(name: .long, help: "The input format when content and extension are not enough: json, yaml, plist, bplist, openstep, csv, opml.")
    var format: DocumentFormat?

    @Option(name: .long, help: ArgumentHelp(ExpansionLimitOption.help, valueName: "factor"))
    var expansionLimit: Int = ExpansionLimit.default.factor

    @Option(name: .long, help: "With a postgres:// URL: the tree table to read (default: the URL's ?table=, else drilldown).")
    var table: String?

    @Option(name: .long, help: ArgumentHelp(IndexMode.help, valueName: "auto|full|lazy"))
    var index: IndexMode = .auto

    @Option(name: .long, help: ArgumentHelp(
        "With a postgres:// URL: the most seconds one database call may take (waiting for a connection, connecting, a query, the commit); a request that runs out of time answers 503.",
        valueName: "seconds"))
    var dbTimeout: Double = 5

    func validate() throws {
        guard dbTimeout.isFinite, (0.1 ... 3600).contains(dbTimeout) else { throw ValidationError("--db-timeout must be between 0.1 and 3600 seconds.") }
    }

    /// Opens `file` with these options (``DrillDown/open(_:options:)``); `schemaFile` stands in
    /// when no `--schema` was given, and else a schema next to the file named after it;
    /// `holdingLock` keeps a document file locked from before it is read (a one-off edit).
    func load(_ file: String, defaultSchema schemaFile: String? = nil, holdingLock: Bool = false) throws -> OpenedData {
        var options = OpenOptions(schemaFile: schema ?? schemaFile)
        options.holdsFileLock = holdingLock
        options.titleKey = titleKey
        options.childrenKey = childrenKey
        options.generic = generic
        options.format = format
        options.expansionLimit = ExpansionLimit(factor: expansionLimit)
        options.table = table
        options.index = index
        options.databaseTimeout = .milliseconds(Int64(dbTimeout * 1000))
        let opened = try DrillDown.open(file, options: options)
        Self.opened.withLock { $0 = opened.source as? any FallibleSource }
        return opened
    }

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
}

/// The data file and how to read it.
struct DataOptions: ParsableArguments {
    @Argument(
        help: "A property list (XML, binary or OpenStep), JSON or YAML file, an SQLite database (a tree table, or tables mapped by the schema's levels:), or a PostgreSQL tree table (postgres://user@host:port/db?table=NAME).",
        completion: .file())
    var file: String

    @OptionGroup var reading: ReadingOptions

    /// Loads the file (and schema) into a presenter.
    func load() throws -> OpenedData { try reading.load(file) }
}

extension DocumentFormat: ExpressibleByArgument {}

/// `--index`: whether a JSON file is read whole into memory or indexed level by level as it is visited.
extension IndexMode: ExpressibleByArgument {
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

