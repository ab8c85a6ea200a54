/// `GET /api/level/PATH`: one page of a level.
struct LevelJSON: Encodable {
    var title: String
    var backLabel: String?
    var path: String
    var titlePath: String
    var total: Int
    var offset: Int
    var limit: Int
    var rows: [RowJSON]
}

/// `GET /api/node/PATH`: a node's detail.
struct NodeJSON: Encodable {
    struct Field: Encodable { var key: String, value: String }
    struct Crumb: Encodable { var title: String, path: String }
    var title: String
    var backLabel: String?
    var path: String
    var titlePath: String
    var kind: String?
    var subtitle: String?
    var image: String?
    var children: Int
    var drills: Bool
    var value: String?
    var valueKind: String?
    var fields: [Field]
    var breadcrumbs: [Crumb]
}

/// `GET /api/search?q=`: a page of hits (from `offset`) and the total.
struct SearchJSON: Encodable {
    struct Hit: Encodable {
        var path: String
        var titlePath: String
        var title: String
        var subtitle: String?
        var drills: Bool
        var href: String
        /// The titles of the hit's ancestors below the root, outermost first (the root's title at the top level).
        var parents: [String]
    }
    var query: String
    var total: Int
    var offset: Int
    var hits: [Hit]
}

/// `GET /api/outline?open=`: one page of the outline's visible rows.
struct OutlineJSON: Encodable {
    struct Entry: Encodable {
        var path: String
        var title: String
        var subtitle: String?
        var depth: Int
        var children: Int
        var expanded: Bool
        /// The number of its siblings (itself included), for `aria-setsize`.
        var setSize: Int
        /// Its 1-based place among its siblings as shown (a sorted level in display order), for `aria-posinset`.
        var position: Int
        var href: String?
    }
    var state: String
    var total: Int
    var offset: Int
    /// The row of the node named by `focus=`, `nil` when not asked or hidden.
    var focusRow: Int?
    var rows: [Entry]
}

/// `GET /api/facets`: a field's most frequent values over a (filtered) level.
struct FacetJSON: Encodable {
    /// One value, its count and the filter that narrows the level to it.
    struct Value: Encodable {
        var value: String
        var label: String
        var count: Int
        var `where`: String
    }

    var path: String
    var field: String
    var rows: Int
    var missing: Int
    var distinct: Int
    var values: [Value]
}
