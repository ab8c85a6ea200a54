import DrillDownFormats

/// A document file whose lock was taken before it was read and is held until the value goes away,
/// as the storage of a `DocumentModel`: a one-off edit (read, change, write) is then never
/// interleaved with another DrillDown writer, and an action counts every earlier writer's step.
struct LockedDocumentFile: DocumentStorage {
    var file: DocumentFile
    let lock: FileLock

    var tree: TreeStore { file.tree }

    mutating func store(_ tree: TreeStore) throws -> TreeStore? {
        switch try file.write(tree, holding: lock) {
        case .written, .unchanged: nil
        case .stale(let newer): newer
        }
    }

    mutating func changes() throws -> TreeStore? { try file.reload() }
}
