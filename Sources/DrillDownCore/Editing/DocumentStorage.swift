/// Where a ``DocumentModel`` keeps an in-memory document that can only be replaced whole (a
/// file): the model groups the changes that arrive while one write runs into the next write.
///
/// A storage is a value that remembers the version of the data it last read or wrote; it never
/// writes over a newer version made by someone else (`DocumentFile` in DrillDownFormats is one).
public protocol DocumentStorage: Sendable {
    /// The data as last read or written here.
    var tree: TreeStore { get }
    /// Writes `tree` when the stored data is still the version last read or written here and
    /// returns `nil`; otherwise writes nothing and returns the newer version (now ``tree``), to
    /// which the caller applies its changes again.
    mutating func store(_ tree: TreeStore) throws -> TreeStore?
    /// The newer version when the stored data changed since it was last read or written here (now ``tree``), else `nil`.
    mutating func changes() throws -> TreeStore?
}
