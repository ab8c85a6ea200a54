import DrillDownCore

/// Writes a ``TreeStore`` in any ``DocumentFormat``.
///
/// Kinds a format lacks are mapped where the mapping is lossless to read back as text (dates
/// and data become strings in JSON; every scalar is a string in OpenStep) and refused where it
/// is not: property lists have no null, so a null node is a ``FormatError`` naming its path, and
/// an object with a duplicate key is refused in every format (see ``DuplicateKeys``).
///
/// ```swift
/// try DocumentWriter.write(tree, to: "Data.plist", format: .plistBinary)
/// ```
public enum DocumentWriter {
    /// Outputs up to this size are kept in memory and written at once; larger ones are written a
    /// chunk at a time as they are made.
    static let keptInMemory = 16 << 20

    /// The document's bytes in `format`.
    /// - Complexity: O(n) in the size of the tree.
    public static func data(_ tree: TreeStore, format: DocumentFormat) throws(FormatError) -> [UInt8] {
        var out = WriterOutput(.collect)
        do throws(WriteFailure) {
            try encode(tree, format: format, to: &out)
        } catch {
            throw FormatError(file: "(\(format.rawValue) output)", message: error.message)
        }
        return out.bytes
    }

    /// Writes the document to `path` atomically: the original file is replaced only once the new
    /// one is complete on disk, and is left untouched by any failure.
    ///
    /// Memory holds at most ``keptInMemory`` bytes of the output: a larger one goes to the
    /// temporary file a chunk at a time. One over `limit` stops being written when it reaches it and
    /// is only counted on: it is refused with the size it would have had, and the temporary file is
    /// removed, so the file at `path` is never created or changed.
    /// - Complexity: O(n) in the size of the tree.
    public static func write(_ tree: TreeStore, to path: String, format: DocumentFormat, limit: OutputLimit = .unlimited) throws(FormatError) {
        try AtomicFile.write(to: path) { fd throws(FormatError) in
            var out = WriterOutput(.file(fd, keep: min(limit.bytes, keptInMemory), limit: limit.bytes))
            do throws(WriteFailure) {
                try encode(tree, format: format, to: &out)
                try out.finish()
            } catch {
                throw FormatError(file: path, message: error.message)
            }
            if out.isOverLimit { throw FormatError(file: path, message: limit.refusal(size: out.total, format: format)) }
        }
    }

    /// Writes `tree` to `out`; a tree whose object repeats a key is refused (see ``DuplicateKeys``).
    static func encode(_ tree: TreeStore, format: DocumentFormat, to out: inout WriterOutput) throws(WriteFailure) {
        if let (node, earlier) = tree.firstDuplicateKey() {
            throw WriteFailure(
                "duplicate key '\(tree.title(of: node))' at \(tree.describePath(node)) (also at \(tree.describePath(earlier))); "
                    + "a key may appear once per object, or no reader would read back both values")
        }
        switch format {
        case .json: try JSONWriter.write(tree, to: &out)
        case .yaml: try YAMLWriter.write(tree, to: &out)
        case .plistXML: try XMLPropertyListWriter.write(tree, to: &out)
        case .plistBinary: try BinaryPropertyListWriter.write(tree, to: &out)
        case .plistOpenStep: try OpenStepWriter.write(tree, to: &out)
        case .csv: try CSVWriter.write(tree, to: &out)
        case .opml: try OPMLWriter.write(tree, to: &out)
        }
    }
}
