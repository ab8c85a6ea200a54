import Hummingbird

/// Keeps writes where they belong and requests small: a read-only server answers POST with 403,
/// methods other than GET, HEAD and POST get 405, a body larger than the limit gets 413 before any
/// handler runs. (CSRF tokens are checked by the edit routes, which read the form.)
struct WriteGuardMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Whether the server was started with `--editable`.
    let editable: Bool
    /// The largest body accepted, in bytes.
    let maxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        switch request.method {
        case .get, .head:
            break
        case .post:
            guard editable else {
                throw WebError(status: .forbidden, message: "This server is read-only: start it with --editable to make changes.")
            }
        default:
            throw WebError(
                status: .methodNotAllowed, message: "\(request.method) is not allowed.",
                headers: [.allow: editable ? "GET, HEAD, POST" : "GET, HEAD"])
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
}
