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

/// A detail view: the node's title, image and every attribute as people read it.
public struct Detail: Sendable, Equatable {
    /// The row the detail belongs to.
    public var row: Row
    /// The attributes in document order, labelled and formatted (``DetailField``); the `kind`
    /// attribute that names the row's kind is bookkeeping and left out.
    public var fields: [DetailField]
    /// The scalar value of a leaf (generic mode), formatted.
    public var value: Scalar?
    /// The line under the detail's title: the row's subtitle, or empty when it only repeats
    /// attributes the detail lists (a song's `{length|duration}` shows once, as Length).
    public var subtitle: String
}
