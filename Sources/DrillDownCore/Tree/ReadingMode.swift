/// How a document's values become nodes.
public enum ReadingMode: Sendable, Equatable {
    /// The outline convention (`Examples/Data.plist`): a root `Rows` array of dictionaries, each with a title
    /// key and an optional children array; other keys are attributes.
    case outline(OutlineKeys)
    /// Any document, browsed like a JSON viewer: entries and elements are children, scalars are leaves.
    case generic
}

/// The keys the outline convention looks for, matched ignoring ASCII case; earlier keys win.
public struct OutlineKeys: Sendable, Equatable {
    /// Keys that hold a row's title.
    public var title: [String]
    /// Keys that hold a row's children array.
    public var children: [String]
    /// Keys of the root dictionary that hold the first level.
    public var rows: [String]

    /// The defaults: `Title`/`name`, `Children`/`items`, `Rows`.
    public static let standard = OutlineKeys(title: ["title", "name"], children: ["children", "items"], rows: ["rows"])

    /// Creates a key set.
    public init(title: [String], children: [String], rows: [String]) {
        self.title = title
        self.children = children
        self.rows = rows
    }

    /// These keys with `title` and `children` put first (from flags or a schema).
    public func preferring(title: [String] = [], children: [String] = []) -> OutlineKeys {
        func merge(_ first: [String], _ rest: [String]) -> [String] {
            var seen = Set<String>()
            return (first.map { $0.lowercased() } + rest).filter { seen.insert($0).inserted }
        }
        return OutlineKeys(
            title: merge(title, self.title), children: merge(children, self.children),
            rows: merge(children, self.rows))
    }
}

extension OutlineKeys {
    /// The keys lowercased as UTF-8 bytes, as sources compare member keys.
    package var folded: (title: [[UInt8]], children: [[UInt8]], rows: [[UInt8]]) {
        func bytes(_ list: [String]) -> [[UInt8]] { list.map { Array($0.lowercased().utf8) } }
        return (bytes(title), bytes(children), bytes(rows))
    }
}
