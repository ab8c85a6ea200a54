import DrillDownCore

/// A presentation schema read from a file: the parsed document and the ``Schema`` it defines.
///
/// This is where every front end loads a schema (`--schema`, the bundled example), so a schema
/// error always names the line and column of the key or value at fault when the file is YAML or
/// JSON:
///
/// ```swift
/// do { let loaded = try SchemaFile(contentsOf: "schema.yaml") }
/// catch { print(error) }   // schema.yaml:6:5: schema field 'kinds.artist': unknown key 'titel' (did you mean 'title'?)
/// ```
public struct SchemaFile: Sendable {
    /// The schema.
    public var schema: Schema
    /// The parsed document (other readers take their parts from it, e.g. a database's `levels:`).
    public var tree: TreeStore

    /// Reads and checks the schema at `path`.
    /// - Throws: ``FormatError`` when the file cannot be read as a document, `SchemaError` (with
    ///   its line and column when the format has them) when it is not a valid schema.
    public init(contentsOf path: String) throws {
        try self.init(bytes: try AtomicFile.read(path), file: path)
    }

    /// Reads and checks a schema held in memory; `file` names it in errors.
    /// - Throws: ``FormatError`` or `SchemaError`, as ``init(contentsOf:)``.
    public init(bytes: [UInt8], file: String, format: DocumentFormat? = nil) throws {
        let read = try DocumentReader.read(bytes: bytes, file: file, format: format)
        do {
            schema = try Schema(tree: read.tree, file: file)
        } catch {
            throw Self.located(error, tree: read.tree, bytes: bytes, format: read.format)
        }
        tree = read.tree
    }

    /// `error` with the line and column of its node, found in the file's text (YAML, and JSON,
    /// which libyaml reads as YAML flow style); unchanged when the position cannot be found.
    /// Runs only on the error path, so a good schema is parsed once.
    static func located(_ error: SchemaError, tree: TreeStore, bytes: [UInt8], format: DocumentFormat) -> SchemaError {
        guard let node = error.node, format == .yaml || format == .json,
            let position = YAMLLocator.position(of: node, in: tree, text: String(decoding: bytes, as: UTF8.self))
        else { return error }
        var located = error
        located.line = position.line
        located.column = position.column
        return located
    }
}
