/// Applies a ``Schema`` to a ``Source``: resolves each node's kind and renders rows and details.
///
/// One presenter serves every front end, so the web app, terminal UI and CLI agree on titles,
/// subtitles, what drills and what opens a detail view.
public struct Presenter: Sendable {
    /// The data.
    public let source: any Source
    /// The presentation schema (empty when none was given).
    public let schema: Schema
    /// The display orders of sorted levels, computed once per level (see ``order(of:)``).
    public let orders: LevelOrders
    /// The level whose order ``sorting(_:by:)`` set, and its rule (`nil`: the data's order).
    var levelSort: (level: NodeID, rule: SortRule?)?
    /// The levels whose rows ``filtering(_:by:)`` narrowed, and their bound filters (the web
    /// narrows the one level it shows; the terminal UI keeps a filter on each level it set one on).
    var levelFilters: [NodeID: BoundFilter] = [:]
    /// The reader's access: rows it may not reach are left out of levels (``rows(of:offset:limit:)``,
    /// ``rowCount(of:)``); `nil` lists every row.
    public var access: AccessView?

    /// Creates a presenter; `orders` caches sorted levels' orders for one snapshot of `source`.
    public init(source: any Source, schema: Schema = Schema(), orders: LevelOrders = LevelOrders()) {
        self.source = source
        self.schema = schema
        self.orders = orders
    }

    /// The root level's title: the schema's, else the source's.
    public var rootTitle: String { schema.title ?? source.rootTitle }

    /// The title of the screen that lists `id`'s children (or shows its detail).
    public func screenTitle(of id: NodeID) -> String { id == source.root ? rootTitle : row(for: id).title }

    /// The kind of `id`: its `kind` attribute naming a known kind, else its parent kind's
    /// `childKind`, else the schema's root kind for first-level rows, else the first kind whose
    /// `match` keys are all present.
    /// - Complexity: O(depth) in the worst case.
    public func kind(of id: NodeID) -> Template? {
        if schema.kinds.isEmpty || id == source.root { return nil }
        if let explicit = source.attribute("kind", of: id)?.text, let t = schema.template(named: explicit) { return t }
        if let p = source.parent(of: id) {
            if p == source.root {
                if let rk = schema.rootKind, let t = schema.template(named: rk) { return t }
            } else if let pk = kind(of: p), let ck = pk.childKind, let t = schema.template(named: ck) {
                return t
            }
        }
        return schema.kinds.first { t in !t.match.isEmpty && t.match.allSatisfy { source.attribute($0, of: id) != nil } }
    }

    /// The raw text a template placeholder reads for `id`.
    func lookup(_ key: String, of id: NodeID) -> String? {
        if let a = source.attribute(key, of: id) { return a.text }
        switch key.lowercased() {
        case "title": return source.title(of: id)
        case "value": return source.value(of: id)?.text
        default: return nil
        }
    }

    /// The row title of `id` under `template`: the template's title, else the node's own.
    func title(of id: NodeID, template: Template?) -> String {
        let title = template?.title?.render { lookup($0, of: id) } ?? ""
        return title.isEmpty ? source.title(of: id) : title
    }

    /// The row for `id`, at `path` when the caller knows it (saves a walk to the root).
    public func row(for id: NodeID, path: TreePath? = nil) -> Row { row(for: id, path: path, generic: isGeneric) }

    /// ``row(for:path:)`` with ``isGeneric`` already known (a page of rows asks once).
    func row(for id: NodeID, path: TreePath?, generic: Bool) -> Row {
        guard let template = kind(of: id) else { return plainRow(for: id, path: path, generic: generic) }
        let count = listedCount(of: id, at: path)
        let title = title(of: id, template: template)
        var subtitle = template.subtitle?.render { lookup($0, of: id) } ?? ""
        if template.subtitle == nil, let v = source.value(of: id), source.title(of: id) != v.text {
            subtitle = v.kind == .null ? "null" : v.text
        }
        let image = template.image?.render { lookup($0, of: id) }
        let select = template.select
        let controls = template.controls.map { c in
            BoundControl(control: c, value: c.kind == .button ? "" : (source.attribute(c.target, of: id)?.text ?? (c.kind == .switch ? "false" : "\(c.min)")))
        }
        return Row(
            id: id, path: path ?? source.path(of: id), kind: template.kind, title: title, subtitle: subtitle,
            image: image.flatMap { $0.isEmpty ? nil : $0 }, drills: select == .drill && count > 0,
            hasDetailButton: template.accessory == .detail, select: select, childCount: count, controls: controls)
    }

    /// The row of a node no kind describes: its own title, its value (or in generic mode its
    /// number of items) as subtitle, drilling when it has children. Written apart from the
    /// templated row so that a plain level's rows do not copy and test an absent `Template?` at
    /// each of its uses.
    private func plainRow(for id: NodeID, path: TreePath?, generic: Bool) -> Row {
        let count = listedCount(of: id, at: path)
        let title = source.title(of: id)
        var subtitle = ""
        let value = source.value(of: id)
        if let v = value, title != v.text {
            subtitle = v.kind == .null ? "null" : v.text
        } else if count > 0, value == nil, generic {
            subtitle = DecimalText.items(count)
        }
        return Row(
            id: id, path: path ?? source.path(of: id), kind: nil, title: title, subtitle: subtitle, image: nil,
            drills: count > 0, hasDetailButton: false, select: .drill, childCount: count, controls: [])
    }

    var isGeneric: Bool { source.documentSource?.mode == .generic }

    /// The rows of the level under `id` in display order (sorted when the level has a
    /// ``sortRule(of:)``), from display position `offset`, at most `limit` of them. Each row's
    /// path names its place in the data, whatever position it shows at.
    /// - Complexity: O(limit), whatever the level's width, once a sorted level's order is known.
    public func rows(of id: NodeID, offset: Int = 0, limit: Int = .max) -> [Row] {
        let window = window(of: id, offset: offset, limit: limit)
        var rows: [Row] = []
        rows.reserveCapacity(window.positions.count)
        forEachRow(of: id, in: window) { rows.append($0) }
        return rows
    }

    /// Calls `body` with each row ``rows(of:offset:limit:)`` returns, in order, without keeping
    /// them: a front end that writes each row out (the web's level page) builds no array of rows,
    /// and the rows' paths share one buffer (the last index is written in place once `body` has
    /// let go of the previous row), so a row costs no allocation of its own.
    /// - Complexity: O(limit), as ``rows(of:offset:limit:)``.
    public func forEachRow(of id: NodeID, offset: Int = 0, limit: Int = .max, _ body: (Row) throws -> Void) rethrows {
        try forEachRow(of: id, in: window(of: id, offset: offset, limit: limit), body)
    }

    /// The rows of a level a page shows: the listed data indices (`nil`: every child, in
    /// ``order(of:)``), the level's children and the display positions shown.
    private struct Window {
        var listed: [Int]?
        var children: NodeRange
        var positions: Range<Int>
    }

    private func window(of id: NodeID, offset: Int, limit: Int) -> Window {
        let listed = listedIndices(of: id)
        let children = source.children(of: id)
        let count = listed?.count ?? children.count
        let lo = max(0, min(offset, count))
        let hi = limit >= count - lo ? count : lo + limit
        return Window(listed: listed, children: children, positions: lo ..< hi)
    }

    private func forEachRow(of id: NodeID, in window: Window, _ body: (Row) throws -> Void) rethrows {
        guard !window.positions.isEmpty else { return }
        let generic = isGeneric
        let order = window.listed == nil ? order(of: id) : nil
        var path = (id == source.root ? TreePath.root : source.path(of: id)).appending(0)
        let last = path.indices.count - 1
        for position in window.positions {
            let index = window.listed?[position] ?? order?.dataIndex(at: position) ?? position
            path.indices[last] = index
            try body(row(for: window.children[index], path: path, generic: generic))
        }
    }

    /// Formatters that templates apply to an attribute in their subtitle, reused in the detail view.
    func inferredFormats(_ key: String, _ template: Template?) -> [Formatter] {
        guard let template else { return [] }
        for t in [template.subtitle, template.title].compactMap({ $0 }) {
            for case .field(let k, let fs) in t.parts where k.caseInsensitiveCompare(key) == .orderedSame && !fs.isEmpty { return fs }
        }
        return []
    }
}

import Foundation
