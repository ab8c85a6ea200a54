import Hummingbird

/// The request context of every route: Hummingbird's core context. Who the request comes from, on
/// a server with accounts, is in the request's state (``RequestState/user``), set by
/// ``SnapshotMiddleware`` from what ``AccountsAuthenticator`` recognised (signing the context in
/// meant changing a copy of it, whose fields are several references).
public struct SiteContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// The signed-in user; `nil` on a server without accounts, before signing in, or outside
    /// ``SnapshotMiddleware`` (the probes).
    public var identity: SignedInUser? { RequestState.current?.user }

    /// The signed-in session's cache entry (its CSRF token made once), when the user came with a
    /// session cookie (see ``SessionCache``).
    var session: SessionCache.Entry? { RequestState.current?.session }
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
