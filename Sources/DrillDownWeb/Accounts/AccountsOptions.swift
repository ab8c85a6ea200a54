import Foundation

/// Accounts of a server (`serve --users`): who may sign in, and how requests prove who they are.
public struct AccountsOptions: Sendable {
    /// The users file (see ``UsersFile``).
    public var usersFile: URL
    /// A header a trusted reverse proxy sets to the signed-in user's name (`X-Forwarded-User`),
    /// believed only from ``trustedProxies``.
    public var authHeader: String?
    /// The addresses of reverse proxies whose `authHeader` and `X-Forwarded-For` are believed.
    public var trustedProxies: [String] = []
    /// Whether the session cookie is marked `Secure` (served over TLS, or behind a proxy that is).
    public var secureCookies = false

    /// Accounts from `usersFile`.
    public init(usersFile: URL) { self.usersFile = usersFile }
}
