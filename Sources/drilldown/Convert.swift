import ArgumentParser
import DrillDown
import DrillDownFormats
import DrillDownPostgres
import DrillDownStore
import Foundation

/// `drilldown convert IN OUT`: rewrite a document in another format, or import it into (or export it from) an SQLite tree table.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert between JSON, YAML, property lists (XML, binary, OpenStep), CSV, OPML and SQLite tree tables; the output is written atomically.",
        discussion: """
            An output named .sqlite, .sqlite3 or .db is an SQLite tree table (one row per node, WAL mode, \
            written in one transaction); an SQLite input is read back losslessly. \
            An output postgres://user@host:port/db?table=NAME is a PostgreSQL tree table (the table is \
            replaced in one transaction and every serving instance is told); such an input is read back losslessly.
            A document output larger than --max-output is refused, and the output file is left as it was.
            A .csv output is one level of records (--level; the root's rows by default): a header of the \
            level's fields (a relational table's columns, a schema kind's fields:, the rows' keys), one \
            row per node. A .opml output is the outline of a subtree (--level). A .csv input is read as \
            one level of rows, its values typed by --schema's kind (--kind) where given.
            On a terminal, writing a database shows the nodes written, the rate and the time left.
            """)

    @Argument(help: "The input file.", completion: .file()) var input: String
    @Argument(help: "The output file; its extension picks the format unless --to is given.", completion: .file()) var output: String
    @Option(name: .long, help: "The input format, when content and extension are not enough.") var from: DocumentFormat?
    @Option(name: .long, help: "The output format: json, yaml, plist, bplist, openstep, csv, opml.") var to: DocumentFormat?
    @Option(
        name: .long,
        help: "With a CSV or OPML output: the level whose rows are written (CSV) or the subtree (OPML), as a TreePath (3.0) or titles (\"Item 4/Screen G\"); the root by default.")
    var level: String?
    @Option(
        name: .long,
        help: "A schema: its kinds' fields: name a CSV output's columns and type a CSV input's values; with a CSV or OPML output, its levels: map a relational SQLite input.")
    var schema: String?
    @Option(name: .long, help: "With a CSV input and --schema: the kind whose fields: type the values (default: the schema's root kind, else the one kind that declares fields).")
    var kind: String?
    @Option(name: .long, help: ArgumentHelp(ExpansionLimitOption.help, valueName: "factor"))
    var expansionLimit: Int = ExpansionLimit.default.factor
    @Option(name: .long, help: ArgumentHelp(OutputLimitOption.help, valueName: "size"))
    var maxOutput: OutputLimit?

    /// Whether the output is an SQLite tree table.
    var writesDatabase: Bool { to == nil && SQLiteFile.hasDatabaseExtension(output) }
    /// Whether the output is a PostgreSQL tree table.
    var writesPostgres: Bool { to == nil && PostgresLocation.isURL(output) }
    /// The document format of the output, when it is a document.
    var outputFormat: DocumentFormat? { to ?? DocumentFormat(fileExtension: URL(fileURLWithPath: output).pathExtension) }
    /// Whether the output is one level (CSV) or one subtree (OPML) of the input's source.
    var writesLevel: Bool { !writesDatabase && !writesPostgres && (outputFormat == .csv || outputFormat == .opml) }

    func validate() throws {
        if level != nil, !writesLevel { throw ValidationError("--level applies to a CSV or OPML output") }
        if to == nil, !writesDatabase, !writesPostgres, DocumentFormat(fileExtension: URL(fileURLWithPath: output).pathExtension) == nil {
            throw ValidationError(
                "cannot tell the output format from '\(output)'; name it with --to (json, yaml, plist, bplist, openstep, csv, opml) or use .sqlite")
        }
    }

    func run() throws {
        if writesLevel { return try writeLevel() }
        let read: (tree: TreeStore, format: String)
        if from == nil, PostgresLocation.isURL(input) {
            let location = try OpenedData.postgresLocation(input, table: nil)
            do {
                let snapshot = try PostgresTreeTable(location).read()
                read = (snapshot.tree, snapshot.documentFormat.flatMap { $0.isEmpty ? nil : $0 } ?? "json")
            } catch {
                throw BadInput(error.description)
            }
        } else if from == nil, OpenedData.isDatabase(input) {
            let table = try OpenedData.readTreeTable(input)
            read = (table.tree, table.documentFormat ?? "json")
        } else if from ?? DocumentFormat(fileExtension: URL(fileURLWithPath: input).pathExtension) == .csv, let schema {
            let fields = try csvFields(schema)
            do { read = (try DocumentReader.read(csv: input, fields: fields), DocumentFormat.csv.rawValue) } catch { throw BadInput(error.description) }
        } else {
            do {
                let document = try DocumentReader.read(
                    contentsOf: input, format: from, expansionLimit: ExpansionLimit(factor: expansionLimit))
                read = (document.tree, document.format.rawValue)
            } catch {
                throw BadInput(error.description)
            }
        }
        let written: String
        if writesPostgres {
            let location = try OpenedData.postgresLocation(output, table: nil)
            let line = ProgressLine.onTerminal(total: read.tree.count, noun: "nodes", verb: "sent")
            defer { line?.finish() }
            do {
                try PostgresTreeTable(location).write(read.tree, documentFormat: read.format) { sent in
                    line?.update(sent)
                    if sent >= read.tree.count { line?.say("building the index…") }
                }
            } catch {
                throw BadInput(error.description)
            }
            written = "postgres"
        } else if writesDatabase {
            let line = ProgressLine.onTerminal(total: read.tree.count, noun: "nodes", verb: "written")
            defer { line?.finish() }
            do {
                try SQLiteTreeStore(path: output).write(read.tree, documentFormat: read.format) { done in
                    line?.update(done)
                    if done >= read.tree.count { line?.say("building the index…") }
                }
            } catch {
                throw BadInput(error.description)
            }
            written = "sqlite"
        } else {
            let format = to ?? DocumentFormat(fileExtension: URL(fileURLWithPath: output).pathExtension)!
            let limit = maxOutput ?? OutputLimit.default(inputBytes: inputSize)
            do { try DocumentWriter.write(read.tree, to: output, format: format, limit: limit) } catch { throw BadInput(error.description) }
            written = format.rawValue
        }
        FileHandle.standardError.write(Data("wrote \(output) (\(written), \(read.tree.count) nodes)\n".utf8))
    }

    /// Writes one level as CSV, or one subtree as OPML, of the input opened as every command opens
    /// data (a document, an SQLite tree table or relational tables, PostgreSQL).
    func writeLevel() throws {
        var options = OpenOptions(schemaFile: schema)
        options.format = from
        options.expansionLimit = ExpansionLimit(factor: expansionLimit)
        options.index = .full
        let opened: OpenedData
        let node: NodeID
        do {
            opened = try DrillDown.open(input, options: options)
            node = try opened.resolve(level)
        } catch {
            throw BadInput(error.description)
        }
        if outputFormat == .opml {
            do { try OPMLWriter.write(opened.source, node: node, to: output) } catch { throw BadInput(error.description) }
            FileHandle.standardError.write(Data("wrote \(output) (opml, \(opened.source.levelTitle(of: node)))\n".utf8))
            return
        }
        let table: LevelTable
        do { table = try LevelTable(source: opened.source, schema: opened.presenter.schema, level: node) } catch { throw BadInput(error.message) }
        let line = ProgressLine.onTerminal(total: table.rows.count, noun: "rows", verb: "written")
        defer { line?.finish() }
        do { try CSVWriter.write(table, to: output, progress: line?.update) } catch { throw BadInput(error.description) }
        line?.finish()
        FileHandle.standardError.write(Data("wrote \(output) (csv, \(table.rows.count) rows, \(table.columns.count) columns)\n".utf8))
    }

    /// The fields that type a CSV input: those of `--kind`, else of the schema's root kind, else
    /// of the one kind that declares fields.
    func csvFields(_ schemaFile: String) throws -> [Field] {
        let loaded: SchemaFile
        do { loaded = try SchemaFile(contentsOf: schemaFile) } catch { throw BadInput("\(error)") }
        let schema = loaded.schema
        if let kind {
            guard let template = schema.template(named: kind) else {
                throw BadInput("\(schemaFile): no kind '\(kind)'; its kinds: \(schema.kinds.map(\.kind).joined(separator: ", "))")
            }
            return template.fields
        }
        if let root = schema.rootKind, let template = schema.template(named: root) { return template.fields }
        let declaring = schema.kinds.filter { !$0.fields.isEmpty }
        return declaring.count == 1 ? declaring[0].fields : []
    }

    /// The input's size in bytes (0 when it is not a file), which the default output limit scales.
    var inputSize: Int {
        ((try? FileManager.default.attributesOfItem(atPath: input))?[.size] as? NSNumber)?.intValue ?? 0
    }
}

extension OutputLimit: ExpressibleByArgument {
    public init?(argument: String) { self.init(parsing: argument) }
}

enum OutputLimitOption {
    static let help = """
        The largest document output to write, e.g. 500M or 2G (K, M, G, T: powers of 1024); a larger one is refused \
        with its size and the output file left as it was. Default: \(OutputLimit.inputFactor) × the input's size, at least \
        \(ByteCount(OutputLimit.floor).rounded), at most half the memory available.
        """
}
