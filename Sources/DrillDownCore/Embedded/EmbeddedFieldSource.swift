/// A source whose rows' text fields that hold a JSON object or array (a database's text, `json`
/// or `jsonb` column) are child nodes: after the row's own children, one node per such field,
/// titled by the field's name, whose children are the JSON's members or elements.
///
/// A column is a field of its row, not a node, so it has no TreePath of its own; here it gets
/// one (`0.3.5` when the album `0.3` has five songs and `liner` is its only JSON field), and
/// TreePaths continue into it (`0.3.5.1.0`). The value inside is read as a generic document
/// (the same reader as ``EmbeddedJSONSource``); text that is not JSON stays a plain field,
/// without an error. A field is parsed only when its row's children are asked for, once per
/// snapshot (see ``EmbeddedFields``); its ids come from the store beneath.
///
/// Changes inside a field go through ``lower(_:)``, which turns them into a new text for the
/// field, written by the store like any other change of the row.
///
/// ```swift
/// let view = EmbeddedFieldSource(rows, fields: EmbeddedFields(json: hook, writable: true, reserve: reserve))
/// let port = try view.resolve("0.3.5.0")
/// ```
public struct EmbeddedFieldSource: Source {
    /// The source beneath, whose ids are this source's ids outside the fields' blocks.
    public let base: any Source
    /// This snapshot's opened fields.
    public let fields: EmbeddedFields

    /// Reads `base` with its rows' JSON fields opened through `fields`.
    public init(_ base: any Source, fields: EmbeddedFields) {
        self.base = base
        self.fields = fields
    }

    public var root: NodeID { base.root }
    public var capacity: Int { base.capacity }
    public var rootTitle: String { base.rootTitle }

    /// The JSON fields of the row `id` (parsed on the first ask); `nil` for the root and for nodes
    /// inside a field.
    func group(of id: NodeID) -> EmbeddedFields.Group? {
        guard id != root, fields.place(of: id) == nil else { return nil }
        return fields.group(of: id) {
            switch fields.opening {
            case .fields: return base.attributes(of: id)
            case .values: return base.value(of: id).map { [Attribute(key: base.title(of: id), value: $0)] } ?? []
            }
        }
    }

    /// The opened field `id` stands for: a field's node, or (``EmbeddedFields/Opening/values``) a
    /// node whose own text value opened.
    func opened(_ id: NodeID) -> EmbeddedFields.Place? {
        if let place = fields.place(of: id) { return place.local == nil ? place : nil }
        guard fields.opening == .values, let group = group(of: id), group.fields.count == 1 else { return nil }
        return EmbeddedFields.Place(group: group, field: 0, local: nil)
    }

    public func children(of id: NodeID) -> NodeRange {
        if let place = fields.place(of: id) {
            return children(place.value, of: place.local)
        }
        let own = base.children(of: id)
        guard let group = group(of: id) else { return own }
        if fields.opening == .values, own.isEmpty {
            return children(group.fields[0], of: nil)
        }
        let ids = group.fields.map(\.id.rawValue)
        return own.isEmpty ? NodeRange(ids[0], ids[0] + Int32(ids.count)) : own.replacing(own.count ..< own.count, with: ids)
    }

    /// The children of `local` inside the field `f` (`nil`: its top level), as this source's ids.
    func children(_ f: EmbeddedFields.Field, of local: NodeID?) -> NodeRange {
        let range = f.block.tree.children(of: local ?? f.block.tree.root)
        return range.isEmpty ? .empty : NodeRange(range.lowerBound + f.block.start, range.upperBound + f.block.start)
    }

    public func parent(of id: NodeID) -> NodeID? {
        guard let place = fields.place(of: id) else { return base.parent(of: id) }
        guard let local = place.local else { return place.group.owner }
        guard let p = place.value.block.tree.parent(of: local) else { return nil }
        return p == place.value.block.tree.root ? place.value.id : place.value.block.global(p)
    }

    public func title(of id: NodeID) -> String {
        guard let place = fields.place(of: id) else { return base.title(of: id) }
        guard let local = place.local else { return place.value.key }
        return place.value.block.reading.title(of: local)
    }

    /// A field's node has the field's text as its value (shown as its subtitle).
    public func value(of id: NodeID) -> Scalar? {
        guard let place = fields.place(of: id) else { return base.value(of: id) }
        guard let local = place.local else { return Scalar(.string, place.value.text) }
        return place.value.block.reading.value(of: local)
    }

    public func attributes(of id: NodeID) -> [Attribute] {
        guard let place = fields.place(of: id) else { return base.attributes(of: id) }
        guard let local = place.local else { return [] }
        return place.value.block.reading.attributes(of: local)
    }

    public func attribute(_ key: String, of id: NodeID) -> Scalar? {
        guard let place = fields.place(of: id) else { return base.attribute(key, of: id) }
        guard let local = place.local else { return nil }
        return place.value.block.reading.attribute(key, of: local)
    }

    /// Whether `id` is a node of the source beneath (not a field or a node inside one).
    func isRow(_ id: NodeID) -> Bool { fields.place(of: id) == nil }

    public func storedFields(of id: NodeID) -> [Field]? { isRow(id) ? base.storedFields(of: id) : nil }
    public func storedFields(forNewChildOf parent: NodeID) -> [Field]? { isRow(parent) ? base.storedFields(forNewChildOf: parent) : nil }
    public func kind(ofNewChildOf parent: NodeID) -> String? { isRow(parent) ? base.kind(ofNewChildOf: parent) : nil }
    public func keepsOrder(ofChildrenOf parent: NodeID) -> Bool { isRow(parent) && base.keepsOrder(ofChildrenOf: parent) }
    public func matchingIndices(ofChildren id: NodeID, where filter: BoundFilter) -> [Int]? {
        isRow(id) ? base.matchingIndices(ofChildren: id, where: filter) : nil
    }
    public func matchingNodes(under id: NodeID, where filter: BoundFilter, limit: Int) -> (hits: [NodeID], total: Int)? {
        isRow(id) ? base.matchingNodes(under: id, where: filter, limit: limit) : nil
    }
    public func facet(ofChildren id: NodeID, field: BoundFilter.Test, where filter: BoundFilter?, limit: Int) -> Facet? {
        isRow(id) ? base.facet(ofChildren: id, field: field, where: filter, limit: limit) : nil
    }
}

extension EmbeddedFieldSource: FallibleSource {
    public var readFailures: (count: Int, last: String?) { (base as? any FallibleSource)?.readFailures ?? (0, nil) }
}
