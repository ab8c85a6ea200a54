import Foundation

/// Why a path string does not name a node.
public struct PathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as the user wrote it.
    public var path: String
    /// What went wrong, for people.
    public var message: String
    /// The nodes an ambiguous title path matched (two siblings with the same title); empty otherwise.
    public var candidates: [TreePath] = []

    /// A path that names nothing, or (with `candidates`) more than one node.
    public init(path: String, message: String, candidates: [TreePath] = []) {
        self.path = path
        self.message = message
        self.candidates = candidates
    }

    public var description: String { "path '\(path)': \(message)" }
}

extension Source {
    /// Resolves a user-written path: a TreePath (`3.0.0`), a `/`-separated title path
    /// (`Item 4/Screen G`, `\/` for a slash inside a title), or `""`/`/` for the root.
    ///
    /// A title segment matches the child with exactly that title, else the one with that title
    /// ignoring case; when two or more siblings match, the path is ambiguous and refused with a
    /// ``PathError`` listing their TreePaths (in ``PathError/candidates``). In a title path a segment that is a number and matches no title
    /// selects the child at that index, so generic array elements work either way.
    /// - Complexity: O(depth × width) for title paths (every sibling is compared), O(depth) for TreePaths.
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
            var exact: [NodeID] = []
            var folded: [NodeID] = []
            for child in range {
                let t = title(of: child)
                if t == segment {
                    exact.append(child)
                } else if exact.isEmpty, t.caseInsensitiveCompare(segment) == .orderedSame {
                    folded.append(child)
                }
            }
            let hits = exact.isEmpty ? folded : exact
            if hits.count > 1 {
                let where_ = n == root ? rootTitle : title(of: n)
                let paths = hits.map { self.path(of: $0).description }
                throw PathError(
                    path: text,
                    message: "'\(where_)' has \(hits.count) children titled '\(segment)', at TreePaths \(paths.joined(separator: ", ")); name one by its TreePath",
                    candidates: hits.map { self.path(of: $0) })
            }
            if let hit = hits.first {
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

    /// How far `path` gets before it leaves the tree, for error messages ("3.1 has 2 children").
    public func describeMiss(_ path: TreePath) -> String {
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
