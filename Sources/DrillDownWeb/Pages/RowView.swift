import DrillDownCore

/// A ``Row`` as the templates and the JSON API see it: texts plus where it leads.
enum RowView {
    /// The template context of one list row.
    static func context(_ row: Row) -> [String: Any] {
        var c: [String: Any] = ["title": row.title, "path": row.path.description]
        if !row.subtitle.isEmpty { c["subtitle"] = row.subtitle }
        if let image = Links.image(row.image) { c["image"] = image }
        if let href = Links.destination(of: row) {
            c["href"] = href
        } else {
            c["disabled"] = true
            if case .action(let name) = row.select { c["action"] = name }
        }
        if row.drills { c["drills"] = true }
        if row.hasDetailButton { c["detailHref"] = Links.detail(row.path) }
        return c
    }
}

/// A row in the JSON API.
struct RowJSON: Encodable {
    var path: String
    var title: String
    var subtitle: String?
    var image: String?
    var kind: String?
    var drills: Bool
    var detailButton: Bool
    var select: String
    var children: Int
    /// The page selecting the row opens; absent when it runs an action.
    var href: String?

    init(_ row: Row) {
        path = row.path.description
        title = row.title
        subtitle = row.subtitle.isEmpty ? nil : row.subtitle
        image = Links.image(row.image)
        kind = row.kind
        drills = row.drills
        detailButton = row.hasDetailButton
        select = row.select.description
        children = row.childCount
        href = Links.destination(of: row)
    }
}
