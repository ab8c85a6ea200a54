/// A ``Source`` over a document held in a ``TreeStore``, read by the outline convention or generically.
///
/// In generic mode node ids are the store's ids. In outline mode a row is the id of its
/// dictionary in the store, and a row's children are the elements of its children array,
/// whose ``NodeRange`` the store already keeps; nothing is copied.
///
/// ```swift
/// let source = DocumentSource(tree: store)            // mode inferred
/// let first = source.children(of: source.root)[0]     // "Item 1"
/// ```
public struct DocumentSource: Source {
    /// The underlying document.
    public let tree: TreeStore
    /// How nodes are read from it.
    public let mode: ReadingMode
    /// A name for the document (its file name), used for the root title in generic mode.
    public let name: String
    let titleKeys: [[UInt8]]
    let childKeys: [[UInt8]]
    let rowKeys: [[UInt8]]
    /// The title search index of this version, built on the first title search.
    let searchCache = SearchIndexCache()
    /// The text values of this version opened as JSON subtrees, when the document was given an
    /// ``EmbeddedJSON`` reader (read them through ``EmbeddedJSONSource``); `nil` otherwise.
    public let embedded: EmbeddedValues?

    /// Reads `tree` with `mode`; with `nil` the outline convention is used when the document follows it.
    /// With `embeddedJSON`, text values that hold a JSON object or array can be opened as subtrees
    /// (see ``EmbeddedJSONSource``).
    public init(tree: TreeStore, mode: ReadingMode? = nil, keys: OutlineKeys = .standard, name: String = "", embeddedJSON: EmbeddedJSON? = nil) {
        self.tree = tree
        self.name = name
        embedded = embeddedJSON.map { EmbeddedValues(json: $0) }
        let keySet: OutlineKeys
        if case .outline(let given) = mode { keySet = given } else { keySet = keys }
        (titleKeys, childKeys, rowKeys) = keySet.folded
        if let mode {
            self.mode = mode
        } else if Self.followsOutlineConvention(tree, rows: rowKeys, titles: titleKeys, children: childKeys) {
            self.mode = .outline(keySet)
        } else {
            self.mode = .generic
        }
    }

    /// This source's reading (mode, keys, name) of another version of its document.
    /// - Complexity: O(1): nothing is looked up again.
    func reading(_ tree: TreeStore) -> DocumentSource {
        DocumentSource(
            tree: tree, mode: mode, name: name, titleKeys: titleKeys, childKeys: childKeys, rowKeys: rowKeys,
            embedded: embedded.map { EmbeddedValues(json: $0.json) })
    }

    private init(
        tree: TreeStore, mode: ReadingMode, name: String, titleKeys: [[UInt8]], childKeys: [[UInt8]], rowKeys: [[UInt8]], embedded: EmbeddedValues?
    ) {
        self.tree = tree
        self.embedded = embedded
        self.mode = mode
        self.name = name
        self.titleKeys = titleKeys
        self.childKeys = childKeys
        self.rowKeys = rowKeys
    }

    /// Whether the document's root is a dictionary with a rows array of dictionaries, or an array
    /// of titled dictionaries that have children.
    static func followsOutlineConvention(_ tree: TreeStore, rows: [[UInt8]], titles: [[UInt8]], children: [[UInt8]]) -> Bool {
        let root = tree.root
        switch tree.kind(of: root) {
        case .object:
            guard let list = tree.member(of: root, lowercasedKeys: rows), tree.kind(of: list) == .array else { return false }
            return tree.children(of: list).allSatisfy { tree.kind(of: $0) == .object }
        case .array:
            let items = tree.children(of: root)
            guard !items.isEmpty, items.allSatisfy({ tree.kind(of: $0) == .object }) else { return false }
            return items.allSatisfy { tree.member(of: $0, lowercasedKeys: titles) != nil }
                && items.contains { tree.member(of: $0, lowercasedKeys: children) != nil }
        default:
            return false
        }
    }

    public var root: NodeID { tree.root }
    public var capacity: Int { tree.idCapacity }

    public var rootTitle: String {
        if case .outline = mode, let t = tree.member(of: root, lowercasedKeys: titleKeys), !tree.kind(of: t).isContainer {
            return String(decoding: tree.valueBytes(of: t), as: UTF8.self)
        }
        if case .generic = mode, !name.isEmpty { return name }
        return "Root"
    }

    /// The store node that holds the children of `id`.
    func childList(of id: NodeID) -> NodeID? {
        guard case .outline = mode else { return id }
        let keys = id == root ? rowKeys : childKeys
        if id == root, tree.kind(of: root) == .array { return root }
        guard let list = tree.member(of: id, lowercasedKeys: keys), tree.kind(of: list) == .array else { return nil }
        return list
    }

    public func children(of id: NodeID) -> NodeRange {
        guard let list = childList(of: id) else { return .empty }
        return tree.children(of: list)
    }

    public func parent(of id: NodeID) -> NodeID? {
        guard let p = tree.parent(of: id) else { return nil }
        guard case .outline = mode else { return p }
        if p == root { return root }
        return tree.parent(of: p)
    }

    public func title(of id: NodeID) -> String {
        guard case .outline = mode else { return tree.title(of: id) }
        if id == root { return rootTitle }
        if !tree.kind(of: id).isContainer { return String(decoding: tree.valueBytes(of: id), as: UTF8.self) }
        if let t = tree.member(of: id, lowercasedKeys: titleKeys), !tree.kind(of: t).isContainer {
            return String(decoding: tree.valueBytes(of: t), as: UTF8.self)
        }
        return "Untitled"
    }

    public func value(of id: NodeID) -> Scalar? {
        guard case .generic = mode else {
            return tree.kind(of: id).isContainer ? nil : tree.value(of: id)
        }
        return tree.value(of: id)
    }

    /// Whether `key` is one of the structural keys (title, children) in outline mode.
    func isStructural(_ member: NodeID, of id: NodeID) -> Bool {
        // Two look-ups rather than one over a concatenation: this runs for every member read.
        titleKeys.contains { tree.keyEquals(member, lowercased: $0) }
            || (id == root ? rowKeys : childKeys).contains { tree.keyEquals(member, lowercased: $0) }
    }

    public func attributes(of id: NodeID) -> [Attribute] {
        guard tree.kind(of: id) == .object else { return [] }
        var result: [Attribute] = []
        for member in tree.children(of: id) {
            if case .outline = mode, isStructural(member, of: id) { continue }
            if case .generic = mode, tree.kind(of: member).isContainer { continue }
            let key = String(decoding: tree.keyBytes(of: member), as: UTF8.self)
            result.append(Attribute(key: key, value: summary(of: member)))
            if result.count >= 500 { break }
        }
        return result
    }

    public func attribute(_ key: String, of id: NodeID) -> Scalar? {
        guard tree.kind(of: id) == .object else { return nil }
        let lower = Array(key.lowercased().utf8)
        for member in tree.children(of: id) where tree.keyEquals(member, lowercased: lower) {
            return summary(of: member)
        }
        return nil
    }

    /// A member's value as a scalar: itself for scalars, a short description for containers.
    func summary(of member: NodeID) -> Scalar {
        let k = tree.kind(of: member)
        if !k.isContainer { return tree.value(of: member) ?? Scalar(.null, "") }
        let n = tree.childCount(of: member)
        if k == .array, n <= 8, tree.children(of: member).allSatisfy({ !tree.kind(of: $0).isContainer }) {
            let items = tree.children(of: member).map { String(decoding: tree.valueBytes(of: $0), as: UTF8.self) }
            return Scalar(.string, items.joined(separator: ", "))
        }
        return Scalar(.string, k == .array ? "\(n) items" : "\(n) entries")
    }
}
