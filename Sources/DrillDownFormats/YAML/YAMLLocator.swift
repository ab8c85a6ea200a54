import DrillDownCore
import Yams

/// Finds where a node of a tree read from YAML (or JSON) text is written, for error messages.
///
/// The tree keeps no positions (that would cost memory on every read); the text is composed
/// again by libyaml, which keeps them, and walked along the node's TreePath: by key in a
/// mapping (the tree titles object members by key), by position in a sequence.
enum YAMLLocator {
    /// The 1-based line and column of the node at `path` (of a mapping member: its key), or of
    /// the deepest of its ancestors that can be found (merge keys copy members from elsewhere);
    /// `nil` when the text does not compose.
    /// - Complexity: O(n) in the text size.
    static func position(of path: TreePath, in tree: TreeStore, text: String) -> (line: Int, column: Int)? {
        guard let composed = try? Yams.compose(yaml: text, .basic) else { return nil }
        var node = composed
        var id = tree.root
        var mark = node.mark
        for index in path.indices {
            let children = tree.children(of: id)
            guard index >= 0, index < children.count else { break }
            let child = children[children.startIndex + index]
            switch node {
            case .mapping(let mapping):
                var found: (key: Node, value: Node)?
                if let key = tree.key(of: child) {
                    for pair in mapping where pair.key.string == key { found = pair }
                }
                guard let pair = found else { return mark.map { ($0.line, $0.column) } }
                mark = pair.key.mark ?? mark
                node = pair.value
            case .sequence(let sequence):
                guard index < sequence.count else { return mark.map { ($0.line, $0.column) } }
                node = sequence[sequence.startIndex + index]
                mark = node.mark ?? mark
            default:
                return mark.map { ($0.line, $0.column) }
            }
            id = child
        }
        return mark.map { ($0.line, $0.column) }
    }
}
