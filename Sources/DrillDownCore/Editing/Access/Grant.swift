/// A role given to one user on one subtree: `{ user: ana, path: "Rock", role: editor }`.
/// `path` is a TreePath (`3.0`) or a title path (`Rock/Queen`); `""` is the whole data set.
public struct Grant: Sendable, Equatable, Codable {
    /// The user the grant is for.
    public var user: String
    /// Where the subtree starts: a TreePath or a title path.
    public var path: String
    /// The role on that subtree (and below, up to a closer grant).
    public var role: Role

    /// A grant of `role` to `user` on the subtree at `path`.
    public init(user: String, path: String, role: Role) {
        self.user = user
        self.path = path
        self.role = role
    }
}
