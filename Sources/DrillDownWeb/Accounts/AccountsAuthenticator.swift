import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth

/// Recognises the user of a request on a server with accounts, first match wins:
/// 1. the ``AccountsOptions/authHeader`` set by a trusted reverse proxy (from any other address the
///    header is ignored);
/// 2. `Authorization: Bearer TOKEN` with an API token of the users file (a wrong, revoked or expired
///    token is 401, not a fall back to the cookie);
/// 3. the signed `dd_auth` session cookie of a sign-in (``SessionCookie``), recognised once per
///    session and users file generation (``SessionCache``), whose entry the request then carries
///    (``SiteContext/session``).
///
/// A token in the URL's query (`access_token=`, `token=`) is refused with 400: URLs end up in logs
/// and browser histories. Requests no one is recognised in are answered by ``SignInGate``.
///
/// It runs in ``SnapshotMiddleware``'s step (``admit(_:)``), not as a middleware of its own
/// (hummingbird-auth's `AuthenticatorMiddleware`, as it first did): each middleware step is an
/// asynchronous call more per request, which cost a signed-in page about 0.9k instructions of
/// the 15k that accounts then added (see Docs/benchmarks.md); and who it recognised goes into the
/// request's state, not its context (``SiteContext``). Bearer tokens are read with
/// hummingbird-auth's `headers.bearer`.
struct AccountsAuthenticator: Sendable {
    /// What the authenticator works with, in one object: the middleware holding it is copied at
    /// each step of a request, and a copy is then one retain.
    final class Parts: Sendable {
        let accounts: AccountStore
        let options: AccountsOptions
        let signer: CSRFTokens
        let sessions: SessionCache
        init(accounts: AccountStore, options: AccountsOptions, signer: CSRFTokens, sessions: SessionCache) {
            self.accounts = accounts
            self.options = options
            self.signer = signer
            self.sessions = sessions
        }
    }

    let parts: Parts
    var accounts: AccountStore { parts.accounts }
    var options: AccountsOptions { parts.options }
    var signer: CSRFTokens { parts.signer }
    var sessions: SessionCache { parts.sessions }

    init(accounts: AccountStore, options: AccountsOptions, signer: CSRFTokens, sessions: SessionCache) {
        parts = Parts(accounts: accounts, options: options, signer: signer, sessions: sessions)
    }

    /// What becomes of a request.
    enum Admission {
        /// It goes on as `user`, with the entry of the session cookie that said who it is.
        case signedIn(SignedInUser, SessionCache.Entry?)
        /// It goes on as no one, to a path open to all.
        case open
        /// It is answered now (``SignInGate``).
        case refused(Response)
    }

    /// Whether `request` goes on, and as whom. Synchronous, so that ``SnapshotMiddleware`` asks it
    /// in its own step; it leaves the request's context alone (``SiteContext``).
    func admit(_ request: Request) throws -> Admission {
        guard let (user, session) = try recognise(request) else {
            return SignInGate.isOpen(request.uri.path) ? .open : .refused(try SignInGate.refusal(request))
        }
        return .signedIn(user, session)
    }

    /// The request's user and, when a session cookie says who it is, that session's entry.
    func recognise(_ request: Request) throws -> (user: SignedInUser, session: SessionCache.Entry?)? {
        if let raw = request.uri.query, !raw.isEmpty {
            let query = Query(raw)
            for name in ["access_token", "token", "bearer", "api_key", "auth"] where query[name] != nil {
                throw WebError.badRequest("Tokens are not accepted in a URL ('\(name)='): send them as 'Authorization: Bearer TOKEN'.")
            }
        }
        // (The users file is read through `loaded`, not copied out of it: a copy is a retain per list.)
        let loaded = accounts.loaded
        if let header = options.authHeader, let name = request.headers[HTTPField.Name(header) ?? .authorization],
            options.trustedProxies.contains(request.headers[.peerAddress] ?? "")
        {
            guard loaded.file.user(name) != nil else { throw WebError(status: .forbidden, message: "The proxy signed in '\(name)', who has no account here.") }
            return (SignedInUser(name: name, means: .proxy), nil)
        }
        switch presented(in: request.headers, loaded) {
        case .bearer:
            guard let bearer = request.headers.bearer, let user = loaded.file.user(forToken: bearer.token) else {
                throw WebError(
                    status: .unauthorized, message: "The bearer token is not valid: it was revoked, has expired or is mistyped.",
                    headers: [.wwwAuthenticate: "Bearer"])
            }
            return (SignedInUser(name: user.name, means: .bearer), nil)
        case .session(let entry): return (entry.user, entry)
        case .nothing: return nil
        }
    }

    /// What a request's fields present: an `Authorization` field (which wins over any cookie), else
    /// the session of its first `dd_auth` cookie that holds one (``entry(for:_:now:)``), else nothing.
    enum Presented {
        case bearer
        case session(SessionCache.Entry)
        case nothing
    }

    /// What `headers` present, found in one walk over them (a signed-in page's request looked for
    /// `Authorization` and then for its cookie in two). A field's name is told by its length
    /// before its text: comparing two names of different lengths as strings costs ten times more.
    func presented(in headers: HTTPFields, _ loaded: AccountStore.Loaded) -> Presented {
        var found: SessionCache.Entry?
        let now = Int(Date().timeIntervalSince1970)
        for field in headers {
            let name = field.name.canonicalName
            switch name.utf8.count {
            case 13 where name == "authorization": return .bearer
            case 6 where found == nil && name == "cookie":
                found = field.withUnsafeBytesOfValue { SessionCookie.firstValue(in: $0) { entry(for: $0, loaded, now: now) } }
            default: break
            }
        }
        return found.map { .session($0) } ?? .nothing
    }

    /// The session `headers` present (``presented(in:_:)``), if any.
    func session(in headers: HTTPFields, _ loaded: AccountStore.Loaded) -> SessionCache.Entry? {
        if case .session(let entry) = presented(in: headers, loaded) { return entry }
        return nil
    }

    /// The entry of the `dd_auth` cookie value `value` when it holds a session signed by
    /// ``signer``, not expired at `now` (Unix seconds), of a user in the users file `loaded`, and
    /// not ended there (signed out, or begun before the user's `sessionsFrom`:
    /// ``UsersFile/hasEnded(_:of:)``): from ``sessions`` when it was recognised before in the file's
    /// generation, else checked now and kept. The cookie is read as bytes where the header holds it
    /// (no string is made on a hit). A hit needs no check of its own for ended sessions: ending one
    /// edits the file, whose next generation no entry holds for.
    func entry(for value: UnsafeBufferPointer<UInt8>, _ loaded: AccountStore.Loaded, now: Int) -> SessionCache.Entry? {
        if let hit = sessions.entry(value, generation: loaded.generation, now: now) { return hit }
        let file = loaded.file, generation = loaded.generation
        let text = String(decoding: value, as: UTF8.self)
        guard let (session, code) = SessionCookie.verified(text, signer: signer), Int(session.expires.timeIntervalSince1970) > now,
            let user = file.user(session.user), !file.hasEnded(session, of: user)
        else { return nil }
        return sessions.keep(
            value, code: code, generation: generation, expires: Int(session.expires.timeIntervalSince1970),
            user: SignedInUser(name: session.user, means: .session(id: session.id)),
            token: signer.sign(SessionCookie.csrfMessage(user: session.user, session: session.id)))
    }
}

/// On a server with accounts, sends requests from no one to sign in: pages get a redirect to
/// `/signin`, the JSON API, `/events` and writes 401 (with `WWW-Authenticate: Bearer`), and neither
/// carries any data. The sign-in page, the stylesheet, the probes and the API's OpenAPI document
/// are open to all (``isOpen(_:)``). Applied by ``AccountsAuthenticator``.
enum SignInGate {
    /// The answer to a request from no one for a path that is not open.
    static func refusal(_ request: Request) throws -> Response {
        let path = request.uri.path
        let wantsPage = (request.method == .get || request.method == .head) && !path.hasPrefix("/api/") && path != "/events"
            && !(request.headers[.accept] ?? "").contains("application/json")
        if wantsPage {
            let back = request.uri.query.map { "\(path)?\($0)" } ?? path
            let target = back == "/" ? "/signin" : "/signin?back=" + (back.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/")
            return Response(status: .seeOther, headers: [.location: target, .cacheControl: "no-store"])
        }
        // Answered here, not by the error page, whose chrome would show the data set's title.
        let message = "Sign in first: send 'Authorization: Bearer TOKEN' (see 'drilldown token create'), or sign in at /signin."
        var response = try Responses.json(ErrorBody(error: message), status: .unauthorized)
        response.headers[.wwwAuthenticate] = "Bearer"
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static func isOpen(_ path: String) -> Bool {
        // The API's description holds no data, and tells a client how to authenticate.
        path == "/signin" || path == "/healthz" || path == "/readyz" || path == "/favicon.ico" || path == "/api/openapi.json"
            || path.hasPrefix("/static/")
    }
}

extension HTTPField.Name {
    /// `WWW-Authenticate`.
    static let wwwAuthenticate = Self("WWW-Authenticate")!
}
