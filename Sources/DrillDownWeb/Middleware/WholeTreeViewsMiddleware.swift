import Hummingbird

/// The outline and columns views (`/outline`, `/columns`, `/api/outline`) list rows of many levels
/// at once and do not yet leave out rows a reader may not reach: a user from whom some rows are
/// hidden (see ``DrillDownCore/AccessView/hidesRows``) gets 403 there and uses the list view,
/// search and the JSON API's levels, which do.
struct WholeTreeViewsMiddleware: RouterMiddleware {
    typealias Context = SiteContext

    func handle(_ request: Request, context: SiteContext, next: (Request, SiteContext) async throws -> Response) async throws -> Response {
        if let access = RequestState.current?.access, access.hidesRows, Self.isWholeTree(request.uri.path) {
            throw WebError.forbidden("The outline and columns views show every row, and some rows are hidden from \(access.user): use the list view.")
        }
        return try await next(request, context)
    }

    static func isWholeTree(_ path: String) -> Bool {
        ["/outline", "/columns", "/api/outline"].contains { path == $0 || path.hasPrefix($0 + "/") }
    }
}
