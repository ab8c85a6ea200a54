import DrillDownCore

/// A document file being edited: the version last read or written (its tree and ``FileStamp``),
/// and writes that change only the bytes that changed, under the file's ``FileLock``, and only
/// over that same version.
///
/// A write never puts an older copy over someone else's change: when the file changed since it
/// was read, ``write(_:holding:)`` writes nothing and returns the newer version, whose tree the
/// caller applies its changes to again (``DocumentModel`` does this for every change it holds).
///
/// ```swift
/// var file = try DocumentFile.read("library.yaml")
/// var doc = EditableDocument(tree: file.tree)
/// try doc.apply(.updateTitle([0], title: "Miles"))
/// switch try file.write(doc.tree) {
/// case .written, .unchanged: break
/// case .stale(let newer): …           // apply the change to `newer` and write again
/// }
/// ```
public struct DocumentFile: Sendable {
    /// The file as given.
    public let path: String
    /// The format it is read and written in.
    public let format: DocumentFormat
    /// The document as last read or written here.
    public private(set) var tree: TreeStore
    /// The file's stamp when it was last read or written here.
    public private(set) var stamp: FileStamp?
    let expansionLimit: ExpansionLimit
    /// Runs right after a write renamed its new file in (a test's stand-in for another writer).
    var afterRename: @Sendable () -> Void = {}

    /// What a write did.
    public enum WriteOutcome: Sendable {
        /// The new text is on disk; `patched` is false when the document had to be written whole.
        case written(patched: Bool)
        /// The document already read as the tree: nothing was written (the file keeps its time).
        case unchanged
        /// The file changed elsewhere since it was read; nothing was written. Its newer tree is
        /// now this value's ``tree``.
        case stale(TreeStore)
    }

    /// Reads the document at `path` (the text and its stamp come from one open file, so they match).
    public static func read(
        _ path: String, format: DocumentFormat? = nil, expansionLimit: ExpansionLimit = .default
    ) throws(FormatError) -> DocumentFile {
        let (read, stamp) = try AtomicFile.withContents(path) { buffer, stamp, loan throws(FormatError) in
            (try DocumentReader.read(buffer: buffer, file: path, format: format, expansionLimit: expansionLimit, lending: loan), stamp)
        }
        return DocumentFile(path: path, format: read.format, tree: read.tree, stamp: stamp, expansionLimit: expansionLimit)
    }

    /// Whether the file on disk is no longer the version read or written here.
    public var changedOnDisk: Bool { FileStamp.of(path) != stamp }

    /// Writes `tree` by patching the file's text (see ``DocumentPatch``), atomically, if the file
    /// is still the version read or written here; takes the file's lock unless `lock` holds it.
    public mutating func write(_ tree: TreeStore, holding lock: FileLock? = nil) throws(FormatError) -> WriteOutcome {
        let held: FileLock
        if let lock { held = lock } else { held = try FileLock(path) }
        defer { if lock == nil { held.unlock() } }
        let (text, current) = try AtomicFile.readStamped(path)
        guard current == stamp else {
            let newer = try DocumentReader.read(bytes: text, file: path, format: format, expansionLimit: expansionLimit).tree
            self.tree = newer
            stamp = current
            return .stale(newer)
        }
        let result = try DocumentPatch.data(text, reads: self.tree, as: tree, format: format)
        if AtomicFile.sameBytes(result.bytes, text) {
            self.tree = tree
            return .unchanged
        }
        // The stamp of the file this write made, not of whatever the path names by now (see AtomicFile.write).
        stamp = try AtomicFile.write(result.bytes, to: path, afterRename: afterRename)
        self.tree = tree
        return .written(patched: result.patched)
    }

    /// Reads the file again when it changed since it was read or written here; returns the newer
    /// tree, or `nil` when it did not change.
    public mutating func reload() throws(FormatError) -> TreeStore? {
        guard changedOnDisk else { return nil }
        let (text, current) = try AtomicFile.readStamped(path)
        tree = try DocumentReader.read(bytes: text, file: path, format: format, expansionLimit: expansionLimit).tree
        stamp = current
        return tree
    }
}

extension DocumentFile: DocumentStorage {
    public mutating func store(_ tree: TreeStore) throws -> TreeStore? {
        switch try write(tree) {
        case .written, .unchanged: nil
        case .stale(let newer): newer
        }
    }

    public mutating func changes() throws -> TreeStore? { try reload() }
}
