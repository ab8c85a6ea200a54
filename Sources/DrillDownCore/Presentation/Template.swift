import Foundation

/// What selecting a row does.
public enum Selection: Sendable, Equatable, CustomStringConvertible {
    /// Push the node's children (or its detail when it has none). The default.
    case drill
    /// Open the node's detail view, even if it has children.
    case detail
    /// Run the named action.
    case action(String)
    /// Nothing.
    case none

    /// Parses `drill`, `detail`, `action:NAME` or `none`.
    public init?(_ text: String) {
        let t = text.trimmingCharacters(in: .whitespaces)
        switch t.lowercased() {
        case "drill": self = .drill
        case "detail": self = .detail
        case "none": self = .none
        default:
            guard t.lowercased().hasPrefix("action:"), t.count > 7 else { return nil }
            self = .action(String(t.dropFirst(7)))
        }
    }

    public var description: String {
        switch self {
        case .drill: "drill"
        case .detail: "detail"
        case .action(let name): "action:\(name)"
        case .none: "none"
        }
    }
}

/// The accessory at a row's trailing edge.
public enum Accessory: String, Sendable, Equatable {
    /// Nothing, except a disclosure chevron when the row drills.
    case automatic
    /// No accessory at all.
    case none
    /// A detail (ⓘ) button that opens the detail view while the row itself drills.
    case detail
}

/// A control inside a row (seed 004): a switch, slider, stepper or button bound to the node.
public struct Control: Sendable, Equatable {
    /// The kind of control.
    public enum Kind: String, Sendable, Equatable { case `switch`, slider, stepper, button }
    /// The kind.
    public var kind: Kind
    /// The attribute it edits (switch, slider, stepper) or the action it runs (button).
    public var target: String
    /// The label shown (the button title; the attribute name otherwise).
    public var label: String
    /// Bounds and step for sliders and steppers.
    public var min: Double, max: Double, step: Double

    /// Creates a control.
    public init(kind: Kind, target: String, label: String, min: Double = 0, max: Double = 100, step: Double = 1) {
        self.kind = kind
        self.target = target
        self.label = label
        self.min = min
        self.max = max
        self.step = step
    }
}

/// The presentation of one kind of node: how its rows look and what selecting them does.
public struct Template: Sendable, Equatable {
    /// The kind's name, e.g. `song`.
    public var kind: String
    /// The row title; the node's title when absent.
    public var title: TextTemplate?
    /// A secondary line or trailing text, e.g. `{length|duration}`.
    public var subtitle: TextTemplate?
    /// A relative image path, e.g. `{art}`.
    public var image: TextTemplate?
    /// The trailing accessory.
    public var accessory: Accessory = .automatic
    /// What selecting the row does.
    public var select: Selection = .drill
    /// The children key of this kind's rows (outline convention), e.g. `albums`.
    public var children: String?
    /// The kind of this kind's children, e.g. `album` under `artist`.
    public var childKind: String?
    /// Attribute keys whose presence identifies this kind.
    public var match: [String] = []
    /// Controls shown in the row.
    public var controls: [Control] = []
    /// The fields a row of this kind is edited with (its form), in order: `fields:` in the schema.
    /// Empty when the schema declares none; the row's own attributes are its fields then.
    public var fields: [Field] = []
    /// Per-attribute formatters for the detail view, e.g. `length: duration`.
    public var formats: [String: [Formatter]] = [:]
    /// How a level of this kind's rows is grouped into sections (`section: initial` or
    /// `section: "{genre}"`); `nil` for one plain list.
    public var section: SectionRule?
    /// Whether a sectioned level shows a section index (a jump bar), `index: true`.
    public var index = false
    /// How a level of this kind's rows is ordered for display (`sort: title`, `sort: -plays`,
    /// `sort: "{year}"`); `nil` keeps the data's order.
    public var sort: SortRule?

    /// A template with defaults only.
    public init(kind: String) { self.kind = kind }
}
