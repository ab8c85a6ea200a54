import ArgumentParser
import DrillDownCore
import DrillDownFormats
import Foundation

/// `drilldown convert IN OUT`: rewrite a document in another format.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert between JSON, YAML and property lists (XML, binary, OpenStep); the output is written atomically.")

    @Argument(help: "The input file.", completion: .file()) var input: String
    @Argument(help: "The output file; its extension picks the format unless --to is given.", completion: .file()) var output: String
    @Option(name: .long, help: "The input format, when content and extension are not enough.") var from: DocumentFormat?
    @Option(name: .long, help: "The output format: json, yaml, plist, bplist, openstep.") var to: DocumentFormat?

    func validate() throws {
        if to == nil, DocumentFormat(fileExtension: URL(fileURLWithPath: output).pathExtension) == nil {
            throw ValidationError("cannot tell the output format from '\(output)'; name it with --to (json, yaml, plist, bplist, openstep)")
        }
    }

    func run() throws {
        let format = to ?? DocumentFormat(fileExtension: URL(fileURLWithPath: output).pathExtension)!
        let read: (tree: TreeStore, format: DocumentFormat)
        do { read = try DocumentReader.read(contentsOf: input, format: from) } catch { throw BadInput(error.description) }
        do { try DocumentWriter.write(read.tree, to: output, format: format) } catch { throw BadInput(error.description) }
        FileHandle.standardError.write(Data("wrote \(output) (\(format.rawValue), \(read.tree.count) nodes)\n".utf8))
    }
}
