import HTTPTypes
import Hummingbird

/// Keeps writes where they belong and requests small, before any handler runs:
/// - a read-only server accepts only GET and HEAD: anything else gets 405 with `Allow: GET, HEAD`;
///   an editable one also accepts POST (other methods: 405 with `Allow: GET, HEAD, POST`);
/// - a POST sent by another site's page is refused with 403: its `Origin` is not this server
///   (see ``HostPolicy/isOwnOrigin(_:requestAuthority:)``) or its `Sec-Fetch-Site` is not
///   `same-origin` (or `none`, typed by the user);
/// - a body larger than the limit gets 413.
///
/// CSRF tokens are checked by the edit routes, which read the form.
struct WriteGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Whether the server was started with `--editable`.
    let editable: Bool
    /// Whether the server has accounts: signing in and out are POSTs even on a read-only server.
    var accounts = false
    /// The largest body accepted, in bytes.
    let maxBodyBytes: Int
    /// The names this server answers to, for the `Origin` check.
    let hosts: HostPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch request.method {
        case .get, .head:
            break
        case .post where editable || (accounts && (request.uri.path == "/signin" || request.uri.path == "/signout")):
            try checkSameOrigin(request)
        default:
            let message = editable
                ? "\(request.method) is not allowed."
                : "This server is read-only: it accepts only GET and HEAD. Start it with --editable to make changes."
            throw WebError(status: .methodNotAllowed, message: message, headers: [.allow: editable ? "GET, HEAD, POST" : "GET, HEAD"])
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBodyBytes {
            throw WebError(status: .contentTooLarge, message: "The request body is larger than \(maxBodyBytes) bytes.")
        }
        var request = request
        if request.headers[.transferEncoding] != nil || request.method == .post {
            do {
                _ = try await request.collectBody(upTo: maxBodyBytes)
            } catch {
                throw WebError(status: .contentTooLarge, message: "The request body is larger than \(maxBodyBytes) bytes.")
            }
        }
        return try await next(request, context)
    }

    /// Refuses a write a browser sent from another origin (another site, or another port of
    /// localhost). Requests without these headers (scripts, curl) still need the CSRF token.
    ///
    /// `Origin: null` is what browsers send for this server's own forms under
    /// `Referrer-Policy: no-referrer`; it passes only when `Sec-Fetch-Site` says `same-origin`.
    func checkSameOrigin(_ request: Request) throws(WebError) {
        let fetchSite = request.headers[.secFetchSite]?.lowercased()
        if let fetchSite, fetchSite != "same-origin", fetchSite != "none" {
            throw .forbidden("The change was refused: it was sent from another site's page (Sec-Fetch-Site: \(fetchSite)).")
        }
        guard let origin = request.headers[.origin] else { return }
        if origin == "null", fetchSite == "same-origin" { return }
        guard hosts.isOwnOrigin(origin, requestAuthority: HostPolicy.authority(of: request)) else {
            let shown = String(origin.unicodeScalars.filter { $0.isASCII && $0.value >= 32 && $0.value < 127 }.map(Character.init).prefix(100))
            throw .forbidden("The change was refused: it was sent from a page of another origin (\(shown)).")
        }
    }
}

extension HTTPField.Name {
    /// `Sec-Fetch-Site`: where the browser says the request comes from.
    static let secFetchSite = Self("Sec-Fetch-Site") ?? .origin
}
