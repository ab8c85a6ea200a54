/// A start or end tag of an OPML document, with its attributes decoded.
struct OPMLElement {
    /// The element's name (`outline`, `head`, `title`, …).
    var name: String
    /// The offset of its `<`.
    var offset: Int
    /// `</name>`.
    var isClose: Bool
    /// `<name/>`.
    var isEmpty: Bool
    /// The attributes in document order, entities decoded; each with the offset of its name.
    var attributes: [(name: String, value: String, offset: Int)]

    var display: String { isClose ? "</\(name)>" : "<\(name)>" }
}
