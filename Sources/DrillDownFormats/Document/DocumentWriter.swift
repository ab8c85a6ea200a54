import DrillDownCore

/// Writes a ``TreeStore`` in any ``DocumentFormat``.
///
/// Kinds a format lacks are mapped where the mapping is lossless to read back as text (dates
/// and data become strings in JSON; every scalar is a string in OpenStep) and refused where it
/// is not: property lists have no null, so a null node is a ``FormatError`` naming its path.
///
/// ```swift
/// try DocumentWriter.write(tree, to: "Data.plist", format: .plistBinary)
/// ```
public enum DocumentWriter {
    /// Outputs up to this size are kept in memory while they are measured and written at once;
    /// larger ones are measured, then written again a chunk at a time.
    static let keptInMemory = 64 << 20

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
    /// With a `limit`, the output is measured first (counted, not kept, past ``keptInMemory``), and
    /// one over the limit is refused before anything is written, naming the size it would have had.
    /// Memory holds at most ``keptInMemory`` bytes of output and a chunk at a time beyond that.
    /// - Complexity: O(n) in the size of the tree, twice for an output over ``keptInMemory`` within a limit.
    public static func write(_ tree: TreeStore, to path: String, format: DocumentFormat, limit: OutputLimit = .unlimited) throws(FormatError) {
        if limit.bytes < Int.max {
            var measured = WriterOutput(.measure(keep: min(limit.bytes, keptInMemory)))
            do throws(WriteFailure) {
                try encode(tree, format: format, to: &measured)
            } catch {
                throw FormatError(file: path, message: error.message)
            }
            guard measured.total <= limit.bytes else {
                throw FormatError(file: path, message: limit.refusal(size: measured.total, format: format))
            }
            if measured.isWhole {
                try AtomicFile.write(measured.bytes, to: path)
                return
            }
        }
        try AtomicFile.write(to: path) { fd throws(FormatError) in
            var out = WriterOutput(.stream(fd))
            do throws(WriteFailure) {
                try encode(tree, format: format, to: &out)
                try out.finish()
            } catch {
                throw FormatError(file: path, message: error.message)
            }
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
        }
    }
}
