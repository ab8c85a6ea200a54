import Foundation

/// Why a path string does not name a node.
public struct PathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as the user wrote it.
    public var path: String
    /// What went wrong, for people.
    public var message: String

    public var description: String { "path '\(path)': \(message)" }
}

extension Source {
    /// Resolves a user-written path: a TreePath (`3.0.0`), a `/`-separated title path
    /// (`Item 4/Screen G`, `\/` for a slash inside a title), or `""`/`/` for the root.
    ///
    /// A title segment matches the first child with exactly that title, else the first with that
    /// title ignoring case. In a title path a segment that is a number and matches no title
    /// selects the child at that index, so generic array elements work either way.
    /// - Complexity: O(depth × width) for title paths, O(depth) for TreePaths.
    public func resolve(_ text: String) throws(PathError) -> NodeID {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "/" { return root }
        if !trimmed.contains("/"), let path = TreePath(trimmed) {
            guard let id = node(at: path) else {
                throw PathError(path: text, message: "no node at TreePath \(path) (\(describeMiss(path)))")
            }
            return id
        }
        var n = root
        for segment in Self.splitTitles(trimmed) {
            let range = children(of: n)
            if let hit = range.first(where: { title(of: $0) == segment })
                ?? range.first(where: { title(of: $0).caseInsensitiveCompare(segment) == .orderedSame })
            {
                n = hit
            } else if let i = Int(segment), i >= 0, i < range.count {
                n = range[i]
            } else {
                let where_ = n == root ? rootTitle : title(of: n)
                throw PathError(path: text, message: "'\(where_)' has no child titled '\(segment)'")
            }
        }
        return n
    }

    func describeMiss(_ path: TreePath) -> String {
        var n = root
        for (level, i) in path.indices.enumerated() {
            let count = childCount(of: n)
            if i >= count {
                let prefix = TreePath(Array(path.indices.prefix(level)))
                let name = prefix.isRoot ? "the root" : "\(prefix)"
                return "\(name) has \(count) \(count == 1 ? "child" : "children")"
            }
            n = children(of: n)[i]
        }
        return "out of range"
    }

    static func splitTitles(_ text: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for ch in text {
            if escaped {
                current.append(ch)
                escaped = false
            } else if ch == "\\" {
                escaped = true
            } else if ch == "/" {
                if !current.isEmpty { parts.append(current) }
                current = ""
            } else {
                current.append(ch)
            }
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }
}
