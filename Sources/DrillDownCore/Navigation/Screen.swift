/// One screen of the drill-down stack: a level listing a node's children, or a node's detail view.
public enum Screen: Sendable, Equatable {
    /// The list of `node`'s children.
    case level(NodeID)
    /// The detail view of `node`.
    case detail(NodeID)

    /// The node the screen shows.
    public var node: NodeID {
        switch self {
        case .level(let n), .detail(let n): n
        }
    }

    /// Whether this is a detail view.
    public var isDetail: Bool { if case .detail = self { true } else { false } }
}

/// What selecting a row led to.
public enum SelectionOutcome: Sendable, Equatable {
    /// A level was pushed.
    case pushedLevel(NodeID)
    /// A detail view was pushed.
    case pushedDetail(NodeID)
    /// The row runs an action; nothing was pushed.
    case action(String, NodeID)
    /// The row does nothing when selected.
    case none
}
