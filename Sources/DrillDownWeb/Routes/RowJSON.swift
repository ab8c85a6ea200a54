import DrillDownCore

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
