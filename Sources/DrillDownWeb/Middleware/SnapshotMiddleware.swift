import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird

/// Gives each request one snapshot of the data (see ``RequestState``) and, on an editable
/// server, a CSRF session: the `dd_session` cookie (a random id, issued on the first request)
/// and its token (see ``CSRFTokens``), which pages embed and every response of an editable
/// server also carries as `X-CSRF-Token` for scripts. On a server with accounts the snapshot is presented as the
/// signed-in user may see it (``RequestState/access``), and the token is bound to the user and
/// their session (see ``csrfToken(for:_:)``).
struct SnapshotMiddleware: RouterMiddleware {
    typealias Context = SiteContext
    let site: Site
    /// On a server with accounts, who may go on and as whom, asked first (in this step rather
    /// than a middleware step of its own: see ``AccountsAuthenticator/admit(_:)``).
    let authenticator: AccountsAuthenticator?

    /// Who a request is signed in as, and the entry of the session cookie that said so.
    struct SignedIn {
        let user: SignedInUser
        let session: SessionCache.Entry?
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authenticator else { return try await snapshot(request, context: context, as: nil, next: next) }
        switch try authenticator.admit(request) {
        case .signedIn(let user, let session): return try await snapshot(request, context: context, as: SignedIn(user: user, session: session), next: next)
        case .open: return try await snapshot(request, context: context, as: nil, next: next)
        case .refused(let response): return response
        }
    }

    /// The request answered from one snapshot of the data, as `signedIn` sees it.
    func snapshot(
        _ request: Request, context: Context, as signedIn: SignedIn?, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        // The probes never touch the data (nor wait for a model busy with its database).
        if request.uri.path == "/healthz" || request.uri.path == "/readyz" { return try await next(request, context) }
        // Every database call of the request ends by its deadline, counted from its arrival.
        if let timeout = site.options.databaseTimeout, RequestDeadline.current == nil {
            return try await RequestDeadline.$current.withValue(.now + timeout) {
                try await snapshot(request, context: context, as: signedIn, next: next)
            }
        }
        let user = signedIn?.user
        guard let model = site.model else {
            guard let accounts = site.accounts, let user else {
                return try await Self.answer(from: site.basePresenter.source) { try await next(request, context) }
            }
            // A read-only server with accounts: the reader's view of the data, and a token for
            // signing out; made once per session (and generation of the users file: see ``SessionCache``).
            func made(_ session: SessionCache.Entry?) -> (state: RequestState, cookie: String?) {
                var presenter = site.basePresenter
                presenter.access = accounts.view(for: user.name, in: presenter.source, revision: 0)
                let (token, cookie) = csrfToken(for: user, session: session, request)
                return (RequestState(presenter: presenter, revision: 0, csrf: token, user: user, access: presenter.access, session: session), cookie)
            }
            let state: RequestState, cookie: String?
            if let session = signedIn?.session {
                state = session.readOnlyState.withLock { kept in
                    let state = kept ?? made(session).state
                    kept = state
                    return state
                }
                cookie = nil
            } else {
                (state, cookie) = made(nil)
            }
            var response = try await RequestState.$current.withValue(state) {
                try await Self.answer(from: site.basePresenter.source) { try await next(request, context) }
            }
            // No `X-CSRF-Token` field: a read-only server takes no writes from scripts (the
            // page's sign-out form and presence carry the token from the page).
            if let cookie { response.headers.append(HTTPField(name: .setCookie, value: cookie)) }
            return response
        }
        // The data and its revision, read together without entering the model.
        var (source, revision, history) = model.versionedState
        let cookies = request.headers[values: .cookie]
        // Who the request's steps are recorded as: the user, or the anonymous session; with a
        // history, Undo and Redo are theirs (see ``DocumentModel/undo(by:key:)``).
        let author = HistoryAuthor(user: user?.name, session: user == nil ? CSRFTokens.sessionID(in: cookies) : nil)
        // (A write's answer asks for it after the write; static files need none.)
        if site.keepsHistory, request.method == .get, !request.uri.path.hasPrefix("/static/") {
            let mine = await model.history(for: author)
            (source, revision, history) = model.versionedState
            history = mine
        }
        // A notice left by a form's undo or redo is shown by the next page, and only by it.
        let notice = request.method == .get && !request.uri.path.hasPrefix("/static/") && request.uri.path != "/events"
            && cookies.contains { $0.contains(StepNotice.cookieName + "=") } ? StepNotice.find(in: cookies) : nil
        var presenter = Presenter(source: source, schema: site.basePresenter.schema, orders: site.orders.orders(at: revision))
        if let accounts = site.accounts, let user { presenter.access = accounts.view(for: user.name, in: source, revision: revision) }
        let (token, cookie) = csrfToken(for: user, session: signedIn?.session, request)
        let state = RequestState(
            presenter: presenter, revision: revision, csrf: token, history: history, notice: notice, user: user, access: presenter.access,
            session: signedIn?.session)
        var response = try await RequestState.$current.withValue(state) {
            try await HistoryAuthor.$current.withValue(author) {
                try await Self.answer(from: source) { try await next(request, context) }
            }
        }
        if notice != nil { response.headers.append(HTTPField(name: .setCookie, value: StepNotice.clearingCookie)) }
        return Self.finish(&response, token: token, cookie: cookie, session: signedIn?.session)
    }

    /// The CSRF token of the request's session, and the `dd_session` cookie to set when one is
    /// issued now. Without accounts: the token of the `dd_session` cookie's id. With accounts:
    /// bound to the user and the signed session's id (a bearer request needs none), so a token
    /// of another user or session is refused; made once per session (`session`, see ``SessionCache``).
    func csrfToken(for user: SignedInUser?, session entry: SessionCache.Entry?, _ request: Request) -> (token: String, cookie: String?) {
        if site.accounts != nil {
            switch user?.means {
            case .session(let id): return (entry?.token ?? site.csrf.sign(SessionCookie.csrfMessage(user: user!.name, session: id)), nil)
            case .bearer, nil: return ("", nil)
            case .proxy: break
            }
        }
        let existing = CSRFTokens.sessionID(in: request.headers[values: .cookie])
        let session = existing ?? CSRFTokens.newSessionID()
        let token = user.map { site.csrf.sign(SessionCookie.csrfMessage(user: $0.name, session: session)) } ?? site.csrf.token(for: session)
        let cookie = existing == nil ? "\(CSRFTokens.cookieName)=\(session); Path=/; SameSite=Strict; HttpOnly" : nil
        return (token, cookie)
    }

    /// `response` with the `dd_session` cookie to set and the `X-CSRF-Token` field (the session
    /// entry's, made once, when the token is its own).
    static func finish(_ response: inout Response, token: String, cookie: String?, session: SessionCache.Entry?) -> Response {
        if let cookie { response.headers.append(HTTPField(name: .setCookie, value: cookie)) }
        if let session, session.token == token {
            response.headers.append(session.tokenField)
        } else if !token.isEmpty {
            response.headers[.csrfToken] = token
        }
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
    static let csrfToken = Self("X-CSRF-Token") ?? .authorization
}
