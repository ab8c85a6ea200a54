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
        abstract: "Convert between JSON, YAML, property lists (XML, binary, OpenStep) and SQLite tree tables; the output is written atomically.",
        discussion: """
            An output named .sqlite, .sqlite3 or .db is an SQLite tree table (one row per node, WAL mode, \
            written in one transaction); an SQLite input is read back losslessly. \
            An output postgres://user@host:port/db?table=NAME is a PostgreSQL tree table (the table is \
            replaced in one transaction and every serving instance is told); such an input is read back losslessly.
            A document output larger than --max-output is refused, and the output file is left as it was.
            """)

    @Argument(help: "The input file.", completion: .file()) var input: String
    @Argument(help: "The output file; its extension picks the format unless --to is given.", completion: .file()) var output: String
    @Option(name: .long, help: "The input format, when content and extension are not enough.") var from: DocumentFormat?
    @Option(name: .long, help: "The output format: json, yaml, plist, bplist, openstep.") var to: DocumentFormat?
    @Option(name: .long, help: ArgumentHelp(ExpansionLimitOption.help, valueName: "factor"))
    var expansionLimit: Int = ExpansionLimit.default.factor
    @Option(name: .long, help: ArgumentHelp(OutputLimitOption.help, valueName: "size"))
    var maxOutput: OutputLimit?

    /// Whether the output is an SQLite tree table.
    var writesDatabase: Bool { to == nil && SQLiteFile.hasDatabaseExtension(output) }
    /// Whether the output is a PostgreSQL tree table.
    var writesPostgres: Bool { to == nil && PostgresLocation.isURL(output) }

    func validate() throws {
        if to == nil, !writesDatabase, !writesPostgres, DocumentFormat(fileExtension: URL(fileURLWithPath: output).pathExtension) == nil {
            throw ValidationError(
                "cannot tell the output format from '\(output)'; name it with --to (json, yaml, plist, bplist, openstep) or use .sqlite")
        }
    }

    func run() throws {
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
            do { try PostgresTreeTable(location).write(read.tree, documentFormat: read.format) } catch { throw BadInput(error.description) }
            written = "postgres"
        } else if writesDatabase {
            do { try SQLiteTreeStore(path: output).write(read.tree, documentFormat: read.format) } catch { throw BadInput(error.description) }
            written = "sqlite"
        } else {
            let format = to ?? DocumentFormat(fileExtension: URL(fileURLWithPath: output).pathExtension)!
            let limit = maxOutput ?? OutputLimit.default(inputBytes: inputSize)
            do { try DocumentWriter.write(read.tree, to: output, format: format, limit: limit) } catch { throw BadInput(error.description) }
            written = format.rawValue
        }
        FileHandle.standardError.write(Data("wrote \(output) (\(written), \(read.tree.count) nodes)\n".utf8))
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
