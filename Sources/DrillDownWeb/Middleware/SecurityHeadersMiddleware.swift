import Hummingbird

/// Adds the security headers every response carries: a strict Content-Security-Policy (nothing
/// from other origins, no inline script or style), `nosniff`, no framing, no referrer.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var policy: String {
        "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
            + "frame-ancestors 'none'; form-action 'self'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = Self.policy }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        response.headers[.referrerPolicy] = "no-referrer"
        response.headers[.crossOriginOpenerPolicy] = "same-origin"
        return response
    }
}

extension HTTPFields.Element.Name {
    static var xFrameOptions: Self { .init("X-Frame-Options")! }
    static var referrerPolicy: Self { .init("Referrer-Policy")! }
    static var crossOriginOpenerPolicy: Self { .init("Cross-Origin-Opener-Policy")! }
}
