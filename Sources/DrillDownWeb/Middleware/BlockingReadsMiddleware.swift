import DrillDownCore
import Hummingbird

/// Handles every request over data that reads a database synchronously (a ``FallibleSource``
/// snapshot) on the ``BlockingExecutor``'s threads, so a database that is slow or gone never holds
/// Swift's cooperative threads, which `/healthz`, static files and every other request need. The
/// outermost middleware: pages, API answers and error pages (which show the data's titles) all
/// read there. The probes stay where they are.
struct BlockingReadsMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path == "/healthz" || request.uri.path == "/readyz" { return try await next(request, context) }
        return try await withTaskExecutorPreference(BlockingExecutor.shared) { try await next(request, context) }
    }
}
