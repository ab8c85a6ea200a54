/// What one user may do in one snapshot of the data (made by ``AccessPolicy/view(for:in:)``):
/// the role at any TreePath, which rows of a level are listed, and checks that throw an
/// ``AccessError`` naming what is missing.
///
/// A row is *readable* when the user's role there is at least ``Role/viewer``; it is *listed*
/// (and reachable by path) when readable or when it leads to a readable grant deeper down, so a
/// user with no role on the whole data set can still walk to the subtree granted to them.
public struct AccessView: Sendable, Equatable {
    /// The user's name.
    public let user: String
    /// The user's role on the whole data set.
    public let base: Role
    /// The user's grants as TreePaths of the snapshot, with their roles.
    let grants: [Grant.Resolved]

    init(user: String, base: Role, grants: [(TreePath, Role)]) {
        self.user = user
        self.base = base
        self.grants = grants.map { Grant.Resolved(path: $0.0, role: $0.1) }
    }

    /// Whether some row may be hidden from this user.
    public var hidesRows: Bool { !base.mayRead || grants.contains { !$0.role.mayRead } }

    /// The user's role at `path`: that of the closest grant at or above it, else ``base``.
    /// - Complexity: O(grants × depth).
    public func role(at path: TreePath) -> Role {
        var best: Grant.Resolved?
        for grant in grants where grant.path.isPrefix(of: path) {
            if best == nil || grant.path.indices.count > best!.path.indices.count { best = grant }
        }
        return best?.role ?? base
    }

    /// Whether the user reads the row at `path`.
    public func mayRead(_ path: TreePath) -> Bool { role(at: path).mayRead }

    /// Whether the row at `path` is listed and reachable: readable, or on the way to a readable grant.
    public func mayReach(_ path: TreePath) -> Bool {
        mayRead(path) || grants.contains { $0.role.mayRead && path.isPrefix(of: $0.path) }
    }

    /// Whether the user changes the row at `path` (adds under it, renames, deletes, moves it).
    public func mayChange(_ path: TreePath) -> Bool { role(at: path).mayChange }

    /// Whether the user changes some part of the data (the whole of it, or a granted subtree).
    public var mayChangeSomewhere: Bool { base.mayChange || grants.contains { $0.role.mayChange } }

    /// `result` without the hits the user may not reach, counted again: searched with no limit
    /// (``hidesRows`` only), its first `limit` listed hits and their number.
    public func filter(_ result: SearchResult, limit: Int, in source: any Source) -> SearchResult {
        guard hidesRows else { return result }
        let kept = result.hits.filter { mayReach(source.path(of: $0)) }
        return SearchResult(hits: Array(kept.prefix(limit)), total: kept.count)
    }

    /// Throws unless the user may change the row at `path`. `title` names the row in the message
    /// only where the user reads it (a hidden row's title would leak).
    /// - Throws: ``AccessError`` naming the user, their role there and the role needed.
    public func requireChange(at path: TreePath, titled title: String? = nil) throws(AccessError) {
        let role = role(at: path)
        guard !role.mayChange else { return }
        let has = role == .none ? "has no role" : "is a \(role.rawValue)"
        throw AccessError(message: "\(user) \(has) at \(place(path, titled: role.mayRead ? title : nil)): changing it needs the editor role", at: path)
    }

    /// How a message names the row at `path`.
    func place(_ path: TreePath, titled title: String?) -> String {
        path.isRoot ? "the whole data set" : title.map { "'\($0)' (\(path))" } ?? path.description
    }

    /// Throws unless the user may change the whole data set (undo and redo, which may take back
    /// anyone's change anywhere).
    public func requireChangeEverywhere(_ what: String) throws(AccessError) {
        guard base.mayChange, !grants.contains(where: { !$0.role.mayChange }) else {
            throw AccessError(message: "\(user) may not \(what): it needs the editor role on the whole data set", at: .root)
        }
    }

    /// The data indices of the children of the level at `path` (of `count` rows) that are
    /// listed, in data order; `nil` when all of them are.
    /// - Complexity: O(grants × depth) when no grant lies below the level, else O(count × grants × depth).
    public func listedChildren(of path: TreePath, count: Int) -> [Int]? {
        let deeper = grants.filter { path.isPrefix(of: $0.path) && $0.path.indices.count > path.indices.count }
        if deeper.isEmpty { return mayRead(path) ? nil : [] }
        let depth = path.indices.count
        let levelReadable = mayRead(path)
        // Only children on the way to a grant can differ from the level itself.
        var special = Set<Int>()
        for grant in deeper { special.insert(grant.path.indices[depth]) }
        if levelReadable {
            let hidden = special.filter { !mayReach(path.appending($0)) }
            return hidden.isEmpty ? nil : (0 ..< count).filter { !hidden.contains($0) }
        }
        return special.filter { $0 < count && mayReach(path.appending($0)) }.sorted()
    }
}

extension Grant {
    /// A grant's place as a TreePath of one snapshot.
    struct Resolved: Sendable, Equatable {
        var path: TreePath
        var role: Role
    }
}

extension TreePath {
    /// Whether `self` is `other` or one of its ancestors.
    func isPrefix(of other: TreePath) -> Bool {
        indices.count <= other.indices.count && other.indices.starts(with: indices)
    }
}
