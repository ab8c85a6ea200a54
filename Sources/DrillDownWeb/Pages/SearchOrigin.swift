import DrillDownCore

/// Where a search started: the page whose search field was used (`?from=` on `/search`), so the
/// search page's back button returns there and says its title, and the search can be narrowed to
/// that page's level ("Only in Back in Black").
struct SearchOrigin {
    /// The page's local URL (`/l/3.0`, `/d/3.0.1`, `/columns/3`, `/outline?...`, `/`).
    var href: String
    /// The back button's label: the page's title.
    var label: String
    /// The level a search from there can be narrowed to (the page's node when it has children,
    /// else its parent); `nil` at the root.
    var scope: NodeID?

    /// The origin named by a `from` parameter, or `nil` when it is not one of this app's pages
    /// (only local paths are followed: never another site).
    init?(_ from: String?, site: Site) {
        guard let from, from.utf8.count <= NodeLookup.maxLength, from.hasPrefix("/"), !from.hasPrefix("//"),
            !from.contains("\\"), !from.unicodeScalars.contains(where: { $0.value < 32 || $0.value == 127 })
        else { return nil }
        let source = site.source
        let path = from.prefix { $0 != "?" && $0 != "#" }
        var node = source.root
        for prefix in ["/l/", "/d/", "/columns/"] where path.hasPrefix(prefix) {
            guard let found = try? NodeLookup.node(path.dropFirst(prefix.count), in: source) else { return nil }
            node = found.id
        }
        guard node != source.root || ["/", "/columns", "/outline"].contains(path) else { return nil }
        href = from
        label = path == "/outline" ? "Outline" : site.presenter.screenTitle(of: node)
        scope = Self.level(of: node, in: source)
    }

    /// The level a search from `node`'s page can be narrowed to; `nil` for the root.
    static func level(of node: NodeID, in source: any Source) -> NodeID? {
        let level = source.childCount(of: node) > 0 ? node : (source.parent(of: node) ?? source.root)
        return level == source.root ? nil : level
    }
}
