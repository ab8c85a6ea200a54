/// A ``Source`` that knows, before a move is tried, which of its nodes can receive moved rows
/// (a relational database's levels: a track goes under an album, not under an artist).
///
/// Destination pickers ask ``MoveCheck``, which asks this when the source conforms; the move
/// itself still enforces the rules.
public protocol MoveRules: Source {
    /// Why the node `moving` cannot become a child of `parent`; `nil` when it can.
    func moveRefusal(of moving: NodeID, into parent: NodeID) -> String?
    /// Whether `id` can have children at all.
    func canHoldChildren(_ id: NodeID) -> Bool
    /// What the children of `parent` are ordered by when they keep an order of their own (a
    /// key, such as `year, title`), so a moved row takes its place there and a position cannot
    /// be chosen; `nil` when rows can be placed anywhere.
    func ownOrder(ofChildrenOf parent: NodeID) -> String?
}

/// Where rows can be moved to, checked before the move for a destination picker: the rows
/// themselves and their descendants cannot receive them, nor values that hold no children, nor
/// rows whose schema kind names no `children:` key, nor what the source's ``MoveRules`` refuse.
public enum MoveCheck {
    /// Why the rows at `moving` cannot move under `parent`; `nil` when they can.
    public static func refusal(moving: [TreePath], into parent: TreePath, in presenter: Presenter) -> String? {
        let source = presenter.source
        guard let target = source.node(at: parent) else { return "there is no row at TreePath \(parent)" }
        for path in moving {
            if path == parent { return "a row cannot move into itself" }
            if parent.hasPrefix(path) { return "a row cannot move into a row inside it" }
        }
        if let reason = holdRefusal(target, in: presenter) { return reason }
        if let rules = source as? any MoveRules {
            for path in moving {
                guard let id = source.node(at: path) else { continue }
                if let reason = rules.moveRefusal(of: id, into: target) { return reason }
            }
        }
        return nil
    }

    /// Why a picker cannot open `path` to look for a destination inside it: it is one of the
    /// rows being moved or inside one, or it cannot hold children. `nil` when it can.
    public static func browseRefusal(_ path: TreePath, moving: [TreePath], in presenter: Presenter) -> String? {
        let source = presenter.source
        if moving.contains(path) { return "Being moved" }
        if moving.contains(where: { path.hasPrefix($0) }) { return "Inside a row being moved" }
        guard let id = source.node(at: path) else { return "Not found" }
        if holdRefusal(id, in: presenter) != nil { return "Cannot hold rows" }
        return nil
    }

    /// Why `id` cannot have children at all (`nil` when it can): a value, a row of a relational
    /// level with no level below, or a row whose schema kind names no `children:` key.
    static func holdRefusal(_ id: NodeID, in presenter: Presenter) -> String? {
        let source = presenter.source
        let name = "“\(presenter.screenTitle(of: id))”"
        if let rules = source as? any MoveRules {
            return rules.canHoldChildren(id) ? nil : "\(name) cannot hold rows"
        }
        guard source.childCount(of: id) == 0, id != source.root else { return nil }
        if source.value(of: id) != nil { return "\(name) is a value and cannot hold rows" }
        if !presenter.schema.kinds.isEmpty, let kind = presenter.kind(of: id), kind.children == nil {
            return "\(name) is a '\(kind.kind)', and the schema gives that kind no children"
        }
        return nil
    }

    /// What the children of `parent` are ordered by, when a position cannot be chosen there.
    public static func ownOrder(ofChildrenOf parent: NodeID, in source: any Source) -> String? {
        (source as? any MoveRules)?.ownOrder(ofChildrenOf: parent)
    }
}
