import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird

/// Gives each request one snapshot of the data (see ``RequestState``) and, on an editable
/// server, a per-session CSRF token: the `dd_csrf` cookie, issued on the first request.
struct SnapshotMiddleware<Context: RequestContext>: RouterMiddleware {
    let site: Site

    /// The cookie that holds the session's CSRF token.
    static var cookieName: String { "dd_csrf" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let model = site.model else { return try await next(request, context) }
        let (source, revision) = await (model.source, model.revision)
        let existing = Self.token(in: request)
        let token = existing ?? Self.newToken()
        let state = RequestState(presenter: Presenter(source: source, schema: site.basePresenter.schema), revision: revision, csrf: token)
        var response = try await RequestState.$current.withValue(state) { try await next(request, context) }
        if existing == nil {
            response.headers.append(HTTPField(
                name: .setCookie, value: "\(Self.cookieName)=\(token); Path=/; SameSite=Strict; HttpOnly"))
        }
        return response
    }

    /// The session's token from the `Cookie` header, when it is well formed.
    static func token(in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces)
                guard pair.hasPrefix(cookieName + "=") else { continue }
                let value = String(pair.dropFirst(cookieName.count + 1))
                if value.count == 32, value.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) { return value }
            }
        }
        return nil
    }

    static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0 ..< 16).map { _ in
            let byte = UInt8.random(in: 0 ... 255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}
