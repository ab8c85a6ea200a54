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
    /// The document's bytes in `format`.
    /// - Complexity: O(n) in the size of the tree.
    public static func data(_ tree: TreeStore, format: DocumentFormat) throws(FormatError) -> [UInt8] {
        do throws(WriteFailure) {
            return try encode(tree, format: format)
        } catch {
            throw FormatError(file: "(\(format.rawValue) output)", message: error.message)
        }
    }

    /// Writes the document to `path` atomically: the original file is replaced only once the new
    /// one is complete on disk, and is left untouched by any failure.
    /// - Complexity: O(n) in the size of the tree.
    public static func write(_ tree: TreeStore, to path: String, format: DocumentFormat) throws(FormatError) {
        let bytes: [UInt8]
        do throws(WriteFailure) {
            bytes = try encode(tree, format: format)
        } catch {
            throw FormatError(file: path, message: error.message)
        }
        try AtomicFile.write(bytes, to: path)
    }

    static func encode(_ tree: TreeStore, format: DocumentFormat) throws(WriteFailure) -> [UInt8] {
        switch format {
        case .json: try JSONWriter.data(tree)
        case .yaml: try YAMLWriter.data(tree)
        case .plistXML: try XMLPropertyListWriter.data(tree)
        case .plistBinary: try BinaryPropertyListWriter.data(tree)
        case .plistOpenStep: try OpenStepWriter.data(tree)
        }
    }
}
