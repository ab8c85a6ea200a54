import DrillDownCore

/// The outline's expanded state as it travels in the URL, so it survives reload and bookmarks.
///
/// Two shapes: `open=1,1.0` lists the expanded TreePaths; `all=1&closed=2` is "expand all"
/// except the listed paths (so expand-all on a huge tree keeps a short URL). A collapsed node's
/// expanded descendants stay listed, and show again when it reopens, as ``Outline`` does.
struct OutlineState: Hashable, Sendable {
    /// Expand everything (then collapse ``closed``).
    var all = false
    /// Expanded paths when not ``all``; sorted, unique.
    var open: [TreePath] = []
    /// Collapsed paths when ``all``; sorted, unique.
    var closed: [TreePath] = []

    /// The most paths a URL may list.
    static let maxPaths = 2000

    init() {}

    /// Reads `open`, `all` and `closed` from a query.
    /// - Throws: ``WebError`` 400 when a listed path is not a TreePath.
    init(query: Query) throws(WebError) {
        all = query["all"] == "1"
        open = try Self.paths(query["open"], name: "open")
        closed = try Self.paths(query["closed"], name: "closed")
        if all { open = [] } else { closed = [] }
    }

    static func paths(_ text: String?, name: String) throws(WebError) -> [TreePath] {
        guard let text, !text.isEmpty else { return [] }
        let parts = text.split(separator: ",")
        guard parts.count <= maxPaths else { throw .badRequest("'\(name)' lists more than \(maxPaths) paths.") }
        var result: [TreePath] = []
        for part in parts {
            guard let path = TreePath(part), !path.isRoot else {
                throw .badRequest("'\(name)' must list TreePaths such as 1,1.0; '\(part)' is not one.")
            }
            result.append(path)
        }
        return Array(Set(result)).sorted()
    }

    /// The query string (without `?`) that reproduces this state; empty when all is collapsed.
    var queryString: String {
        if all { return closed.isEmpty ? "all=1" : "all=1&closed=" + closed.map(\.description).joined(separator: ",") }
        return open.isEmpty ? "" : "open=" + open.map(\.description).joined(separator: ",")
    }

    /// The outline URL of this state, with extra parameters.
    func href(_ extra: String = "") -> String {
        let parts = [queryString, extra].filter { !$0.isEmpty }
        return parts.isEmpty ? "/outline" : "/outline?" + parts.joined(separator: "&")
    }

    /// This state with `path` flipped: collapsed if `expanded`, expanded otherwise.
    func toggling(_ path: TreePath, expanded: Bool) -> OutlineState {
        var next = self
        if all {
            if expanded { next.closed = Array(Set(closed + [path])).sorted() } else { next.closed.removeAll { $0 == path } }
        } else {
            if expanded { next.open.removeAll { $0 == path } } else { next.open = Array(Set(open + [path])).sorted() }
        }
        return next
    }

    /// Builds the outline (sorted levels in display order); paths that name no node are ignored.
    /// - Complexity: O(paths × depth × log width), plus O(n) for ``all``.
    func outline(of presenter: Presenter) -> Outline {
        let source = presenter.source
        var outline = Outline(presenter: presenter)
        if all {
            outline.expandAll()
            for path in closed { if let id = source.node(at: path) { outline.collapse(id) } }
        } else {
            for path in open { if let id = source.node(at: path) { outline.expand(id) } }
        }
        return outline
    }

    /// The outline of an ``all`` state from an already expanded-all outline of the same source.
    /// - Complexity: a copy of `expandedAll` (a few bytes per node) plus O(closed × depth × log width).
    func outline(of source: any Source, expandedAll: Outline) -> Outline {
        var outline = expandedAll
        for path in closed { if let id = source.node(at: path) { outline.collapse(id) } }
        return outline
    }
}
