/// One row of a level as every front end shows it: the template applied to a node.
public struct Row: Sendable, Equatable {
    /// The node.
    public var id: NodeID
    /// The row's TreePath.
    public var path: TreePath
    /// The kind resolved from the schema, if any.
    public var kind: String?
    /// The main text.
    public var title: String
    /// Secondary text (a formatted attribute, a value preview, a child count).
    public var subtitle: String
    /// A relative image path inside the data folder, if the template names one.
    public var image: String?
    /// Whether selecting pushes a level (a disclosure chevron is shown).
    public var drills: Bool
    /// Whether a detail (ⓘ) accessory button is shown.
    public var hasDetailButton: Bool
    /// What selecting the row does.
    public var select: Selection
    /// The number of children.
    public var childCount: Int
    /// Controls shown inside the row, with their current values.
    public var controls: [BoundControl]
}

/// A control together with the value it shows for one node.
public struct BoundControl: Sendable, Equatable {
    /// The control.
    public var control: Control
    /// The current value (`true`/`false` for switches, a number for sliders and steppers).
    public var value: String
}

/// A detail view: the node's title, image and every attribute formatted by its template.
public struct Detail: Sendable, Equatable {
    /// The row the detail belongs to.
    public var row: Row
    /// `(label, formatted value)` pairs in document order.
    public var fields: [(String, String)]
    /// The scalar value of a leaf (generic mode), formatted.
    public var value: Scalar?

    public static func == (a: Detail, b: Detail) -> Bool {
        a.row == b.row && a.value == b.value && a.fields.map { $0.0 + "\u{0}" + $0.1 } == b.fields.map { $0.0 + "\u{0}" + $0.1 }
    }
}
