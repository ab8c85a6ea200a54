import Foundation

/// The text values of one document version that were opened as JSON, with the node ids their
/// subtrees were given: shared by every copy of that version's ``DocumentSource`` (each version
/// gets its own), used by any thread.
///
/// A value is parsed the first time a reader asks for its children, never at load, and once per
/// version. Its nodes get a block of ids above the document's own (`capacity` on), in the order
/// values are opened; a value that is not JSON is remembered as text.
public final class EmbeddedValues: @unchecked Sendable {
    /// The reader and writer (injected by the library).
    public let json: EmbeddedJSON
    /// One opened value: the parsed tree, read generically, and where its ids start.
    struct Block: Sendable {
        /// The text value whose JSON this is.
        var owner: NodeID
        /// The id of the tree's root (its node 0); the tree's node `n` is `start + n`.
        var start: Int32
        /// The parsed value, read generically (and able to open JSON text inside it in turn).
        var reading: DocumentSource
        var tree: TreeStore { reading.tree }
        /// Whether `id` is one of this block's ids.
        func holds(_ id: NodeID) -> Bool { id.rawValue >= start && Int(id.rawValue - start) < tree.idCapacity }
        /// The tree's node for `id`.
        func local(_ id: NodeID) -> NodeID { NodeID(id.rawValue - start) }
        /// The id of the tree's node `local`.
        func global(_ local: NodeID) -> NodeID { NodeID(local.rawValue + start) }
    }

    private let lock = NSLock()
    /// Owner id → index in `blocks`, or -1 for a value that is text.
    private var opened: [Int32: Int32] = [:]
    private var blocks: [Block] = []
    private var next: Int32 = -1

    /// A cache for one version of a document, reading and writing values with `json`.
    public init(json: EmbeddedJSON) { self.json = json }

    /// One past the greatest id given out, at least `base` (the document's own capacity).
    func capacity(base: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return next < 0 ? base : Int(next)
    }

    /// The block of the text value `owner`, parsing `text` (which ``EmbeddedJSON/mayHold(_:)``)
    /// the first time; `nil` when it is not a JSON object or array or its ids would not fit.
    func block(owning owner: NodeID, base: Int, text: TextBytes) -> Block? {
        lock.lock()
        defer { lock.unlock() }
        if let known = opened[owner.rawValue] { return known < 0 ? nil : blocks[Int(known)] }
        if next < 0 { next = Int32(clamping: base) }
        guard let tree = json.read(Array(text)), tree.kind(of: tree.root).isContainer,
            Int(next) + tree.idCapacity < Int(Int32.max) / 2
        else {
            opened[owner.rawValue] = -1
            return nil
        }
        let block = Block(owner: owner, start: next, reading: DocumentSource(tree: tree, mode: .generic, embeddedJSON: json))
        next += Int32(tree.idCapacity)
        opened[owner.rawValue] = Int32(blocks.count)
        blocks.append(block)
        return block
    }

    /// The block whose ids include `id` (an id at or above the document's capacity).
    /// - Complexity: O(log values opened)
    func block(containing id: NodeID) -> Block? {
        lock.lock()
        defer { lock.unlock() }
        var lo = 0, hi = blocks.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if blocks[mid].holds(id) { return blocks[mid] }
            if id.rawValue < blocks[mid].start { hi = mid - 1 } else { lo = mid + 1 }
        }
        return nil
    }
}
