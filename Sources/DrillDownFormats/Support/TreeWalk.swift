import DrillDownCore

/// One step of a depth-first walk of a ``TreeStore``: writers consume these instead of recursing,
/// so a 10 000-deep document cannot overflow a thread's stack.
enum TreeEvent {
    /// A scalar node at `depth`.
    case scalar(NodeID, depth: Int)
    /// A container node at `depth`; its children follow, then its `close`.
    case open(NodeID, depth: Int)
    /// The end of the container node at `depth`.
    case close(NodeID, depth: Int)
}

/// The nodes of a tree in document order as ``TreeEvent``s.
/// - Complexity: O(n) for the whole walk, O(depth) memory.
struct TreeWalk: Sequence, IteratorProtocol {
    private let tree: TreeStore
    private var stack: [(node: NodeID, children: NodeRange, next: Int)] = []
    private var started = false

    init(_ tree: TreeStore) { self.tree = tree }

    mutating func next() -> TreeEvent? {
        if !started {
            started = true
            return visit(tree.root)
        }
        guard let top = stack.last else { return nil }
        if top.next < top.children.count {
            stack[stack.count - 1].next += 1
            return visit(top.children[top.next])
        }
        stack.removeLast()
        return .close(top.node, depth: stack.count)
    }

    private mutating func visit(_ node: NodeID) -> TreeEvent {
        let depth = stack.count
        guard tree.kind(of: node).isContainer else { return .scalar(node, depth: depth) }
        stack.append((node, tree.children(of: node), 0))
        return .open(node, depth: depth)
    }
}

extension TreeStore {
    /// Names `id` for messages: its TreePath (the form every front end accepts) and its keys and
    /// indexes joined by `/`, e.g. `TreePath 0.2 (Rows/2)`; `the root` for the root.
    func describePath(_ id: NodeID) -> String {
        var parts: [String] = []
        var indices: [Int] = []
        var node = id
        while let p = parent(of: node) {
            parts.append(title(of: node))
            indices.append(children(of: p).position(of: node) ?? 0)
            node = p
        }
        guard !parts.isEmpty else { return "the root" }
        return "TreePath \(TreePath(indices.reversed())) (\(parts.reversed().joined(separator: "/")))"
    }
}
