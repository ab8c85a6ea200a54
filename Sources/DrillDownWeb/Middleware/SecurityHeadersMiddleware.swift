import Hummingbird

/// Adds the security headers every response carries: a strict Content-Security-Policy (nothing
/// from other origins, no inline script or style), `nosniff`, no framing, no referrer.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var policy: String { securityPolicy }

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

/// The Content-Security-Policy of every page, made once.
let securityPolicy =
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; "
    + "frame-ancestors 'none'; form-action 'self'"

// Made once, not validated again on every response.
extension HTTPFields.Element.Name {
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let crossOriginOpenerPolicy = Self("Cross-Origin-Opener-Policy")!
}
