/// An n-level index path from the root, as a table view names a row: `3.0.0` is the first child of the first
/// child of the fourth row of the root level. The empty path is the root.
///
/// The same string names a node in every front end: the CLI's PATH argument, the web URL,
/// the terminal's go-to prompt and the JSON API.
public struct TreePath: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The child index at each level, outermost first.
    public var indices: [Int]

    /// Creates a path from indices.
    public init(_ indices: [Int]) { self.indices = indices }

    public init(arrayLiteral elements: Int...) { self.indices = elements }

    /// The root's path.
    public static let root = TreePath([])

    /// Parses the dotted form (`3.0.0`; `""` is the root). Returns `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        if text.isEmpty {
            self.indices = []
            return
        }
        var result: [Int] = []
        for part in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.utf8.count <= 9, part.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                let n = Int(part)
            else { return nil }
            result.append(n)
        }
        self.indices = result
    }

    /// The number of levels below the root.
    public var depth: Int { indices.count }
    /// Whether this is the root's path.
    public var isRoot: Bool { indices.isEmpty }
    /// The parent's path (the root is its own parent).
    public var parent: TreePath { TreePath(Array(indices.dropLast())) }
    /// The path of the `index`-th child.
    public func appending(_ index: Int) -> TreePath {
        // One allocation of the final size: `indices + [index]` allocated the one-element array and
        // then grew a copy (callgrind: a 100-row level page 277k -> 251k instructions, one path per row).
        var copy = indices
        copy.reserveCapacity(indices.count + 1)
        copy.append(index)
        return TreePath(copy)
    }
    /// Whether `self` is `other` or lies below it.
    public func hasPrefix(_ other: TreePath) -> Bool { indices.starts(with: other.indices) }

    /// The dotted form, `3.0.0` (empty for the root).
    public var description: String {
        // Digits appended in place: this runs several times for every row of every page.
        var out = ""
        out.reserveCapacity(indices.count * 4)
        for (k, i) in indices.enumerated() {
            if k > 0 { out.unicodeScalars.append(".") }
            out += String(i)
        }
        return out
    }

    public static func < (lhs: TreePath, rhs: TreePath) -> Bool { lhs.indices.lexicographicallyPrecedes(rhs.indices) }
}
