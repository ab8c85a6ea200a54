/// An edit of a document, addressed by the TreePaths of its ``Source`` (what the user sees):
/// every front end builds these and hands them to one ``EditableDocument`` or ``DocumentModel``.
///
/// ```swift
/// let add = Change.insert(NewNode(title: "Item 5"), parent: .root, index: nil)    // append a row
/// let rename = Change.updateTitle([0], title: "First")
/// let count = Change.setAttribute([0, 3], key: "plays", value: Scalar(.integer, "1"))
/// let port = Change.setValue([0, 2], value: Scalar(.integer, "9090"))   // a scalar leaf's value
/// let drop = Change.delete([2])
/// let up = Change.move([3], parent: .root, index: 0)
/// ```
public enum Change: Sendable, Equatable, CustomStringConvertible {
    /// Adds `node` as a child of `parent` at `index` (`nil` appends).
    ///
    /// In the outline convention the new row is a dictionary `{Title: …, attributes…}` added to the
    /// parent's children array, which is created when absent. In generic mode a new member of an
    /// object is keyed by the title; a new element of an array ignores it.
    case insert(NewNode, parent: TreePath, index: Int?)
    /// Changes the title of the node at the path: the title key of an outline row, the key of a
    /// generic object member.
    case updateTitle(TreePath, title: String)
    /// Sets (or, with `nil`, removes) the scalar attribute `key` of the node at the path.
    case setAttribute(TreePath, key: String, value: Scalar?)
    /// Replaces the value of the scalar node at the path (a generic document's leaf, such as a
    /// config's `port`), keeping its key and place. `Scalar(.null, "")` writes null where the
    /// format has one. A dictionary or array has no value: set its attributes instead.
    case setValue(TreePath, value: Scalar)
    /// Removes the node at the path and everything below it.
    case delete(TreePath)
    /// Moves the node at the first path to be the child of `parent` at `index` (`nil` appends),
    /// counted after the node has left its old place; `parent` is a path before the move.
    case move(TreePath, parent: TreePath, index: Int?)

    /// The path the change addresses (the parent for an insert).
    public var path: TreePath {
        switch self {
        case .insert(_, let parent, _): parent
        case .updateTitle(let p, _), .setAttribute(let p, _, _), .setValue(let p, _), .delete(let p), .move(let p, _, _): p
        }
    }

    public var description: String {
        func at(_ i: Int?) -> String { i.map { " at \($0)" } ?? "" }
        func show(_ p: TreePath) -> String { p.isRoot ? "(root)" : p.description }
        switch self {
        case .insert(let node, let parent, let index): return "insert '\(node.title)' into \(show(parent))\(at(index))"
        case .updateTitle(let p, let title): return "retitle \(show(p)) to '\(title)'"
        case .setAttribute(let p, let key, let value?): return "set \(show(p)) \(key)=\(value.text)"
        case .setAttribute(let p, let key, nil): return "unset \(show(p)) \(key)"
        case .setValue(let p, let value): return "set \(show(p)) to \(value.kind == .null ? "null" : value.text)"
        case .delete(let p): return "delete \(show(p))"
        case .move(let p, let parent, let index): return "move \(show(p)) into \(show(parent))\(at(index))"
        }
    }
}

/// A node to insert: its title and attributes (and, in generic mode only, a scalar value).
public struct NewNode: Sendable, Equatable {
    /// The title: the row's title, or the member's key in a generic object.
    public var title: String
    /// Scalar attributes, in order.
    public var attributes: [Attribute]
    /// Generic mode only: insert this scalar instead of an object.
    public var value: Scalar?

    /// Creates a node description.
    public init(title: String, attributes: [Attribute] = [], value: Scalar? = nil) {
        self.title = title
        self.attributes = attributes
        self.value = value
    }
}
