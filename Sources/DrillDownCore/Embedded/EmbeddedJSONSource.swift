/// A ``DocumentSource`` whose text values that hold a JSON object or array are nodes with children.
///
/// Such a value (after optional whitespace, `{…}` or `[…]`, parsed by the document's
/// ``EmbeddedJSON`` reader within its limits) keeps its own title and text, and its members or
/// elements are its children, read as a generic document: TreePaths continue into it
/// (`3.2.0.1` when `3.2` is the text value), and titles, details, filters and paths work there as
/// anywhere. Text that is not JSON stays text, without an error.
///
/// A value is parsed only when its children are asked for (its row is listed or opened), once per
/// document version (see ``EmbeddedValues``); a text that does not open with `{` or `[` costs two
/// byte tests. The value's nodes have ids from the document's capacity on.
///
/// Edits inside a value go through ``EditableDocument``, which writes the value's text anew.
///
/// ```swift
/// let view = EmbeddedJSONSource(DocumentSource(tree: tree, embeddedJSON: hook))
/// let inside = try view.resolve("3.2.0.1")
/// ```
public struct EmbeddedJSONSource: Source {
    /// The document itself, whose ids are this source's ids below its capacity.
    public let document: DocumentSource
    let values: EmbeddedValues
    let base: Int

    /// Reads `document` with its text values' JSON opened; a document without an ``EmbeddedJSON``
    /// reader is read as it is.
    public init(_ document: DocumentSource) {
        self.document = document
        values = document.embedded ?? EmbeddedValues(json: EmbeddedJSON(maxBytes: 0, read: { _ in nil }, write: { _ in nil }))
        base = document.capacity
    }

    /// The opened value `id` stands for, when `id` is a text value holding a JSON object or array.
    func block(owning id: NodeID) -> EmbeddedValues.Block? {
        let text: TextBytes
        if id.index < base {
            guard document.tree.kind(of: id) == .string else { return nil }
            text = document.tree.valueBytes(of: id)
        } else {
            guard let b = values.block(containing: id), b.tree.kind(of: b.local(id)) == .string else { return nil }
            text = b.tree.valueBytes(of: b.local(id))
        }
        guard values.json.mayHold(text) else { return nil }
        return values.block(owning: id, base: base, text: text)
    }

    /// The opened value that holds the node `id`, for ids from the document's capacity on.
    func block(containing id: NodeID) -> EmbeddedValues.Block? {
        id.index < base ? nil : values.block(containing: id)
    }

    /// Whether `id` is a text value that opens as JSON.
    public func holdsJSON(_ id: NodeID) -> Bool { block(owning: id) != nil }

    /// The text value whose JSON holds `id` (the outermost one), or `nil` for a node of the document itself.
    public func owner(of id: NodeID) -> NodeID? {
        var n = id
        var found: NodeID?
        while let b = block(containing: n) {
            found = b.owner
            n = b.owner
        }
        return found
    }

    public var root: NodeID { document.root }
    public var capacity: Int { values.capacity(base: base) }
    public var rootTitle: String { document.rootTitle }

    public func children(of id: NodeID) -> NodeRange {
        if let b = block(owning: id) { return shifted(b.tree.children(of: b.tree.root), by: b.start) }
        if let b = block(containing: id) { return shifted(b.tree.children(of: b.local(id)), by: b.start) }
        return document.children(of: id)
    }

    /// A parsed tree's (contiguous) level as this source's ids.
    private func shifted(_ range: NodeRange, by start: Int32) -> NodeRange {
        range.isEmpty ? .empty : NodeRange(range.lowerBound + start, range.upperBound + start)
    }

    public func parent(of id: NodeID) -> NodeID? {
        guard let b = block(containing: id) else { return document.parent(of: id) }
        guard let p = b.tree.parent(of: b.local(id)) else { return nil }
        return p == b.tree.root ? b.owner : b.global(p)
    }

    public func title(of id: NodeID) -> String {
        guard let b = block(containing: id) else { return document.title(of: id) }
        return b.reading.title(of: b.local(id))
    }

    public func value(of id: NodeID) -> Scalar? {
        guard let b = block(containing: id) else { return document.value(of: id) }
        return b.reading.value(of: b.local(id))
    }

    public func attributes(of id: NodeID) -> [Attribute] {
        guard let b = block(containing: id) else { return document.attributes(of: id) }
        return b.reading.attributes(of: b.local(id))
    }

    public func attribute(_ key: String, of id: NodeID) -> Scalar? {
        guard let b = block(containing: id) else { return document.attribute(key, of: id) }
        return b.reading.attribute(key, of: b.local(id))
    }

    /// Whether the document answers for the children of `id` (a document node that is not an opened value).
    private func documentLevel(_ id: NodeID) -> Bool { id.index < base && block(owning: id) == nil }

    public func storedFields(of id: NodeID) -> [Field]? { id.index < base ? document.storedFields(of: id) : nil }
    public func storedFields(forNewChildOf parent: NodeID) -> [Field]? {
        documentLevel(parent) ? document.storedFields(forNewChildOf: parent) : nil
    }
    public func kind(ofNewChildOf parent: NodeID) -> String? { documentLevel(parent) ? document.kind(ofNewChildOf: parent) : nil }
    public func keepsOrder(ofChildrenOf parent: NodeID) -> Bool { documentLevel(parent) && document.keepsOrder(ofChildrenOf: parent) }
    public func matchingIndices(ofChildren id: NodeID, where filter: BoundFilter) -> [Int]? {
        documentLevel(id) ? document.matchingIndices(ofChildren: id, where: filter) : nil
    }
    public func facet(ofChildren id: NodeID, field: BoundFilter.Test, where filter: BoundFilter?, limit: Int) -> Facet? {
        documentLevel(id) ? document.facet(ofChildren: id, field: field, where: filter, limit: limit) : nil
    }
}

extension Source {
    /// The ``DocumentSource`` this source reads: itself, or the document an ``EmbeddedJSONSource``
    /// opens values of; `nil` for other sources. Its ids are this source's ids below its capacity.
    public var documentSource: DocumentSource? { (self as? DocumentSource) ?? (self as? EmbeddedJSONSource)?.document }
}
