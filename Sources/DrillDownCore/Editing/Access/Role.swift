/// What a user may do at a place in the data: nothing, read, change, or change and manage users.
/// Roles are ordered: each one may do everything the ones before it may.
public enum Role: String, Sendable, Codable, CaseIterable, Comparable {
    /// Sees nothing: the rows are not listed, searched, counted or reachable by path.
    case none
    /// Reads.
    case viewer
    /// Reads and changes.
    case editor
    /// Reads, changes, and manages users and history.
    case admin

    /// Whether this role reads rows.
    public var mayRead: Bool { self >= .viewer }
    /// Whether this role changes rows.
    public var mayChange: Bool { self >= .editor }

    public static func < (a: Role, b: Role) -> Bool { a.rank < b.rank }

    private var rank: Int {
        switch self {
        case .none: 0
        case .viewer: 1
        case .editor: 2
        case .admin: 3
        }
    }

    /// The role named `text` (`viewer`, `editor`, `admin`, `none`), or an error naming the choices.
    public init(named text: String) throws(AccessError) {
        guard let role = Role(rawValue: text.lowercased()) else {
            throw AccessError(message: "'\(text)' is not a role: use none, viewer, editor or admin")
        }
        self = role
    }
}
