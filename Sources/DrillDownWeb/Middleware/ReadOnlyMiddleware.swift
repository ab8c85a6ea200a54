import Hummingbird

/// Keeps the server read-only and its requests small: methods other than GET and HEAD get 405,
/// a body larger than the limit gets 413 before any handler runs.
struct ReadOnlyMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The largest body accepted, in bytes.
    let maxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            throw WebError(
                status: .methodNotAllowed, message: "This server is read-only: \(request.method) is not allowed.",
                headers: [.allow: "GET, HEAD"])
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBodyBytes {
            throw WebError(status: .contentTooLarge, message: "The request body is larger than \(maxBodyBytes) bytes.")
        }
        var request = request
        if request.headers[.transferEncoding] != nil {
            do {
                _ = try await request.collectBody(upTo: maxBodyBytes)
            } catch {
                throw WebError(status: .contentTooLarge, message: "The request body is larger than \(maxBodyBytes) bytes.")
            }
        }
        return try await next(request, context)
    }
}
