import Hummingbird
import HummingbirdAuth

/// The request context of every route: Hummingbird's core context and, on a server with
/// accounts, who the request comes from (set by ``AccountsAuthenticator``).
public struct SiteContext: AuthRequestContext, RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Who signed in, in one reference: the context is copied at each step of a request, and a
    /// copy is then one retain (a user's name and session id were one each).
    private var signedIn: SignedIn?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        signedIn = nil
    }

    /// The signed-in user; `nil` on a server without accounts, or before signing in.
    public var identity: SignedInUser? {
        get {
            switch signedIn {
            case .session(let entry): entry.user
            case .other(let box): box.user
            case nil: nil
            }
        }
        set { signedIn = newValue.map { .other(UserBox(user: $0)) } }
    }

    /// The signed-in session's cache entry (its CSRF token made once), when the user came with a
    /// session cookie (see ``SessionCache``).
    var session: SessionCache.Entry? {
        if case .session(let entry) = signedIn { entry } else { nil }
    }

    /// Signs the request in as `user`, with `session` when a session cookie said who it is.
    mutating func signIn(_ user: SignedInUser, session: SessionCache.Entry?) {
        signedIn = session.map { .session($0) } ?? .other(UserBox(user: user))
    }

    private enum SignedIn: Sendable {
        case session(SessionCache.Entry)
        case other(UserBox)
    }

    private final class UserBox: Sendable {
        let user: SignedInUser
        init(user: SignedInUser) { self.user = user }
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
