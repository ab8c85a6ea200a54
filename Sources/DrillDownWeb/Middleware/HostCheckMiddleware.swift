import Hummingbird

/// Answers requests for host names this server was not started for with 421 Misdirected Request
/// and a short plain message, before anything else runs (see ``HostPolicy``): a DNS-rebinding
/// page never gets the data or a CSRF token.
struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    let policy: HostPolicy

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard policy.allows(request) else {
            let authority = HostPolicy.authority(of: request)
            let shown = String((authority ?? "").unicodeScalars.filter { $0.isASCII && $0.value >= 32 && $0.value < 127 }
                .map(Character.init).prefix(100))
            return Response(
                status: .misdirectedRequest,
                headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(string:
                    "421 Misdirected Request: this server does not answer to the host name '\(shown)'. "
                    + "Start it with --allow-host \(shown.split(separator: ":").first.map(String.init) ?? "NAME") to allow it.\n")))
        }
        return try await next(request, context)
    }
}
