import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird

/// Gives each request one snapshot of the data (see ``RequestState``) and, on an editable
/// server, a CSRF session: the `dd_session` cookie (a random id, issued on the first request)
/// and its token (see ``CSRFTokens``), which pages embed and every response also carries as
/// `X-CSRF-Token` for scripts.
struct SnapshotMiddleware<Context: RequestContext>: RouterMiddleware {
    let site: Site

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The probes never touch the data (nor wait for a model busy with its database).
        if request.uri.path == "/healthz" || request.uri.path == "/readyz" { return try await next(request, context) }
        // Every database call of the request ends by its deadline, counted from its arrival.
        if let timeout = site.options.databaseTimeout, RequestDeadline.current == nil {
            return try await RequestDeadline.$current.withValue(.now + timeout) { try await handle(request, context: context, next: next) }
        }
        guard let model = site.model else { return try await Self.answer(from: site.basePresenter.source) { try await next(request, context) } }
        // The data and its revision, read together without entering the model.
        let (source, revision, history) = model.versionedState
        let cookies = request.headers[values: .cookie]
        let existing = CSRFTokens.sessionID(in: cookies)
        let session = existing ?? CSRFTokens.newSessionID()
        let token = site.csrf.token(for: session)
        // A notice left by a form's undo or redo is shown by the next page, and only by it.
        let notice = request.method == .get && !request.uri.path.hasPrefix("/static/") && request.uri.path != "/events"
            && cookies.contains { $0.contains(StepNotice.cookieName + "=") } ? StepNotice.find(in: cookies) : nil
        let state = RequestState(
            presenter: Presenter(source: source, schema: site.basePresenter.schema, orders: site.orders.orders(at: revision)), revision: revision, csrf: token,
            history: history, notice: notice)
        var response = try await RequestState.$current.withValue(state) {
            try await Self.answer(from: source) { try await next(request, context) }
        }
        if existing == nil {
            response.headers.append(HTTPField(
                name: .setCookie, value: "\(CSRFTokens.cookieName)=\(session); Path=/; SameSite=Strict; HttpOnly"))
        }
        if notice != nil { response.headers.append(HTTPField(name: .setCookie, value: StepNotice.clearingCookie)) }
        response.headers[.csrfToken] = token
        return response
    }
}

extension SnapshotMiddleware {
    /// The response `respond` gives, unless the snapshot is a ``FallibleSource`` and a read failed
    /// meanwhile (its database is unreachable): then 503, not a page with rows missing, and not the
    /// 404 or 400 that a lookup in a level that could not be read ends in.
    /// (Such a request runs on the ``BlockingExecutor``: see ``BlockingReadsMiddleware``.)
    static func answer(from source: any Source, _ respond: () async throws -> Response) async throws -> Response {
        guard let fallible = source as? any FallibleSource else { return try await respond() }
        let before = fallible.readFailures.count
        let response: Response
        do {
            response = try await respond()
        } catch let error as WebError where error.status != .serviceUnavailable {
            try unavailable(fallible, since: before)
            throw error
        }
        try unavailable(fallible, since: before)
        return response
    }

    /// Throws 503 when a read of `source` failed since its failure count was `before`.
    static func unavailable(_ source: any FallibleSource, since before: Int) throws {
        let after = source.readFailures
        guard after.count > before else { return }
        throw WebError(
            status: .serviceUnavailable, message: "the data could not be read (\(after.last ?? "unknown error")); try again shortly",
            headers: [.retryAfter: "1"])
    }
}

extension HTTPField.Name {
    /// `X-CSRF-Token`: the session's token, sent back with writes from scripts.
    static var csrfToken: Self { Self("X-CSRF-Token") ?? .authorization }
}
