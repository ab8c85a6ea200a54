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
/// 3. the signed `dd_auth` session cookie of a sign-in (``SessionCookie``).
///
/// A token in the URL's query (`access_token=`, `token=`) is refused with 400: URLs end up in logs
/// and browser histories. Requests no one is recognised in are left to ``SignInGateMiddleware``.
struct AccountsAuthenticator: AuthenticatorMiddleware {
    typealias Context = SiteContext
    let accounts: AccountStore
    let options: AccountsOptions
    let signer: CSRFTokens

    func authenticate(request: Request, context: SiteContext) async throws -> SignedInUser? {
        let query = Query(request.uri.query)
        for name in ["access_token", "token", "bearer", "api_key", "auth"] where query[name] != nil {
            throw WebError.badRequest("Tokens are not accepted in a URL ('\(name)='): send them as 'Authorization: Bearer TOKEN'.")
        }
        let file = accounts.current
        if let header = options.authHeader, let name = request.headers[HTTPField.Name(header) ?? .authorization],
            options.trustedProxies.contains(request.headers[.peerAddress] ?? "")
        {
            guard file.user(name) != nil else { throw WebError(status: .forbidden, message: "The proxy signed in '\(name)', who has no account here.") }
            return SignedInUser(name: name, means: .proxy)
        }
        if request.headers[.authorization] != nil {
            guard let bearer = request.headers.bearer, let user = file.user(forToken: bearer.token) else {
                throw WebError(
                    status: .unauthorized, message: "The bearer token is not valid: it was revoked, has expired or is mistyped.",
                    headers: [.wwwAuthenticate: "Bearer"])
            }
            return SignedInUser(name: user.name, means: .bearer)
        }
        if let session = SessionCookie.read(request.headers[values: .cookie], signer: signer), file.user(session.user) != nil {
            return SignedInUser(name: session.user, means: .session(id: session.id))
        }
        return nil
    }
}

/// On a server with accounts, sends requests from no one to sign in: pages get a redirect to
/// `/signin`, the JSON API, `/events` and writes 401 (with `WWW-Authenticate: Bearer`), and neither
/// carries any data. The sign-in page, the stylesheet, the probes and the API's OpenAPI document
/// are open to all.
struct SignInGateMiddleware: RouterMiddleware {
    typealias Context = SiteContext

    func handle(_ request: Request, context: SiteContext, next: (Request, SiteContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if context.identity != nil || Self.isOpen(path) { return try await next(request, context) }
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
    static var wwwAuthenticate: Self { Self("WWW-Authenticate")! }
}
