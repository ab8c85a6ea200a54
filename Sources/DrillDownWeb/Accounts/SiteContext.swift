import Hummingbird
import HummingbirdAuth

/// The request context of every route: Hummingbird's core context and, on a server with
/// accounts, who the request comes from (set by ``AccountsAuthenticator``).
public struct SiteContext: AuthRequestContext, RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in user; `nil` on a server without accounts, or before signing in.
    public var identity: SignedInUser?
    /// The signed-in session's cache entry (its CSRF token made once), when the user came with a
    /// session cookie (see ``SessionCache``).
    var session: SessionCache.Entry?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
        session = nil
    }
}

/// Who a request comes from, and how they proved it.
public struct SignedInUser: Sendable, Equatable {
    /// How the user was recognised.
    public enum Means: Sendable, Equatable {
        /// The `dd_auth` session cookie of a sign-in (its session id: CSRF tokens are bound to it).
        case session(id: String)
        /// `Authorization: Bearer` with an API token: no cookie, no CSRF token.
        case bearer
        /// The header a trusted reverse proxy set (`--auth-header`).
        case proxy
    }

    /// The user's name in the users file.
    public var name: String
    /// How they were recognised.
    public var means: Means
}
