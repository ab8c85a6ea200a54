/// Who may read or change which part of the data: each user's role on the whole data set, and
/// ``Grant``s of other roles on subtrees (the closest grant above a row wins). The one rule every
/// front end (web pages, the JSON API, `/events`, the terminal UI) asks, through the
/// ``AccessView`` of one user over one snapshot.
///
/// ```swift
/// let policy = AccessPolicy(roles: ["ana": .viewer], grants: [Grant(user: "ana", path: "Rock", role: .editor)])
/// let view = policy.view(for: "ana", in: source)
/// view.mayChange(TreePath([0]))          // true when row 0 is "Rock" or inside it
/// try view.requireChange(at: TreePath([1]))   // AccessError: ana is a viewer at …
/// ```
public struct AccessPolicy: Sendable, Equatable {
    /// Each user's role on the whole data set; users not listed have ``Role/none``.
    public var roles: [String: Role]
    /// Roles on subtrees.
    public var grants: [Grant]

    /// A policy of `roles` and `grants`.
    public init(roles: [String: Role], grants: [Grant] = []) {
        self.roles = roles
        self.grants = grants
    }

    /// What `user` may do in `source`: the user's grants resolved to TreePaths of this snapshot.
    /// A grant whose path names no node (or several) is left out.
    /// - Complexity: O(grants × depth × width) for title paths; resolve once per snapshot.
    public func view(for user: String, in source: any Source) -> AccessView {
        var resolved: [(TreePath, Role)] = []
        for grant in grants where grant.user == user {
            guard let id = try? source.resolve(grant.path) else { continue }
            resolved.append((source.path(of: id), grant.role))
        }
        return AccessView(user: user, base: roles[user] ?? .none, grants: resolved)
    }
}
