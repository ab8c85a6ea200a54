import DrillDownCore

/// Reads documents (JSON, YAML, property lists in all three encodings) into a ``TreeStore``.
///
/// The format is detected from the content (see `DocumentFormat.detect(_:fileExtension:)`)
/// unless given. Every failure — a missing file, invalid UTF-8, a syntax error, a corrupt binary
/// property list — is one ``FormatError`` naming the file, the line and column where the format
/// has them, and what was expected; no input crashes or hangs the reader.
///
/// ```swift
/// let (tree, format) = try DocumentReader.read(contentsOf: "Data.plist")
/// let source = DocumentSource(tree: tree, name: "Data.plist")
/// ```
public enum DocumentReader {
    /// Reads the document at `path`; `format` overrides detection; shared values (YAML aliases,
    /// binary property-list references) may expand it up to `expansionLimit`.
    /// - Complexity: O(n) in the file size.
    public static func read(
        contentsOf path: String, format: DocumentFormat? = nil, expansionLimit: ExpansionLimit = .default
    ) throws(FormatError) -> (tree: TreeStore, format: DocumentFormat) {
        let bytes = try AtomicFile.read(path)
        return try read(bytes: bytes, file: path, format: format, expansionLimit: expansionLimit)
    }

    /// Reads a document held in memory; `file` names it in errors and its extension helps detection.
    /// - Complexity: O(n) in the number of bytes.
    public static func read(
        bytes: [UInt8], file: String, format: DocumentFormat? = nil, expansionLimit: ExpansionLimit = .default
    ) throws(FormatError) -> (tree: TreeStore, format: DocumentFormat) {
        let result: Result<(TreeStore, DocumentFormat), FormatError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(FormatError) {
                return .success(try read(buffer: buffer, file: file, format: format, expansionLimit: expansionLimit))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads a document from bytes it does not keep (a mapped file, see ``MappedFile``), unless
    /// `loan` lends them (see ``InputLoan``).
    static func read(
        buffer: UnsafeBufferPointer<UInt8>, file: String, format: DocumentFormat? = nil, expansionLimit: ExpansionLimit = .default,
        lending loan: InputLoan? = nil
    ) throws(FormatError) -> (tree: TreeStore, format: DocumentFormat) {
        let chosen = format ?? DocumentFormat.detect(buffer, fileExtension: fileExtension(of: file))
        do throws(ParseFailure) {
            return (try parse(buffer, as: chosen, limit: expansionLimit, lending: loan), chosen)
        } catch {
            throw error.formatError(file: file, bytes: buffer)
        }
    }

    static func parse(
        _ buffer: UnsafeBufferPointer<UInt8>, as format: DocumentFormat, limit: ExpansionLimit = .default, lending loan: InputLoan? = nil
    ) throws(ParseFailure) -> TreeStore {
        switch format {
        case .json: try JSONReader.read(buffer, lending: loan)
        case .yaml: try YAMLReader.read(buffer, limit: limit)
        case .plistXML: try XMLPropertyListReader.read(buffer)
        case .plistBinary: try BinaryPropertyListReader.read(buffer, limit: limit)
        case .plistOpenStep: try OpenStepReader.read(buffer)
        case .csv: try CSVReader.read(buffer)
        case .opml: try OPMLParser.read(buffer)
        }
    }

    static func fileExtension(of path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return String(name[name.index(after: dot)...])
    }
}
