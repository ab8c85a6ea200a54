import DrillDownCore
import Foundation
import HTTPTypes
import Hummingbird

/// Signing in and out on a server with accounts (`serve --users`), working without JavaScript:
///
/// - `GET /signin?back=/l/0`: the sign-in form (name and password).
/// - `POST /signin` `user=`, `password=`, `back=`: on success a new session (a fresh id, whatever
///   session cookie came with the request) in the `dd_auth` cookie and a redirect to `back`; a
///   wrong name or password shows the form again (401) with one message for both, so the answer
///   does not tell which names exist; after repeated failures 429 with `Retry-After`
///   (see ``SignInThrottle``). The password is checked off the request threads (``PasswordChecks``);
///   when too many checks are queued, 503 with `Retry-After: 1`.
/// - `POST /signout` (with the page's CSRF token): ends the session and goes to `/signin`. The
///   session is recorded as signed out in the users file (``UsersFile/signedOut``), so a copy of
///   its cookie is refused on every instance; with `everywhere=1` ("Sign out everywhere") every
///   session of the user ends (``UsersFile/endSessions(of:now:)``). When the file cannot be
///   written, the browser's cookie is removed all the same, and the sign-in page and standard
///   error say that the sign-out was not recorded (`/signin?signout=failed`).
extension Site {
    func addAccountRoutes(to router: Router<SiteContext>, accounts: AccountStore, options: AccountsOptions) {
        router.get("/signin") { request, context in
            if context.identity != nil { return Responses.redirect(Self.localBack(Query(request.uri.query)["back"])) }
            let query = Query(request.uri.query)
            let outcome = query["signout"].flatMap(SignOutOutcome.init(rawValue:))
            return signInPage(back: query["back"], user: "", message: outcome?.problem, notice: outcome?.notice, status: .ok)
        }
        router.post("/signin") { request, _ in
            var request = request
            // A form past the limit is 413, not the 500 that collectBody's NIOTooManyBytesError ends in (found by schemathesis).
            let body: ByteBuffer
            do { body = try await request.collectBody(upTo: options.maxFormBytes) } catch {
                throw WebError(status: .contentTooLarge, message: "The sign-in form is larger than \(options.maxFormBytes) bytes.")
            }
            let form = Query(String(buffer: body))
            let name = (form["user"] ?? "").trimmingCharacters(in: .whitespaces)
            let password = form["password"] ?? ""
            let back = form["back"]
            let address = clientAddress(request, options: options)
            let wait = throttle.wait(account: name, address: address)
            if wait > 0 {
                var page = signInPage(
                    back: back, user: name,
                    message: "Too many failed sign-ins: wait \(wait) s before trying again.", status: .tooManyRequests)
                page.headers[.retryAfter] = String(wait)
                return page
            }
            // bcrypt runs off the request threads, so a flood of sign-ins cannot stall pages (``PasswordChecks``).
            let file = accounts.current
            let outcome: UsersFile.User?? = await passwordChecks.run { file.signIn(name, password: password) }
            guard let checked = outcome else {
                var page = signInPage(back: back, user: name, message: "Too many sign-ins at once: try again in a moment.", status: .serviceUnavailable)
                page.headers[.retryAfter] = "1"
                return page
            }
            guard !name.isEmpty, !password.isEmpty, let user = checked else {
                throttle.failed(account: name, address: address)
                return signInPage(back: back, user: name, message: "The name or the password is wrong.", status: .unauthorized)
            }
            throttle.succeeded(account: user.name)
            let session = SessionCookie.new(for: user.name)
            return Response(
                status: .seeOther,
                headers: [
                    .location: Self.localBack(back), .cacheControl: "no-store",
                    .setCookie: SessionCookie.setCookie(session.value(signedWith: csrf), secure: options.secureCookies),
                ])
        }
        router.post("/signout") { request, context in
            guard let identity = context.identity else { return Responses.redirect("/signin") }
            let form = try await EditRequest.read(request, api: false, maxBytes: self.options.maxBodyBytes, tokens: csrf)
            let everywhere = !(form["everywhere"] ?? "").isEmpty
            // Signing out forgets the session's cache entry (see ``SessionCache``)…
            _ = SessionCookie.firstValue(in: request.headers) { value -> Bool? in
                sessions.remove(value)
                return nil
            }
            // …and records it in the users file, which every instance reads.
            var outcome: SignOutOutcome? = everywhere ? .everywhere : nil
            let session = context.session.flatMap { entry -> (id: String, expires: Date)? in
                guard case .session(let id) = entry.user.means else { return nil }
                return (id, Date(timeIntervalSince1970: TimeInterval(entry.expires)))
            }
            if everywhere || session != nil {
                // Off the request threads: the file's lock may be held a while by a `drilldown user` command.
                let failure: (any Error)? = await BlockingWork.run(label: "drilldown.signout") {
                    do {
                        try accounts.update { file in
                            if everywhere { try file.endSessions(of: identity.name) } else if let session { file.signOut(session: session.id, expires: session.expires) }
                        }
                        return nil
                    } catch { return error }
                }
                if let failure {
                    outcome = everywhere ? .everywhereFailed : .failed
                    FileHandle.standardError.write(Data("drilldown: the sign-out of \(identity.name) was not recorded, \(everywhere ? "their other sessions go on" : "a copy of the session's cookie works until it expires"): \(failure)\n".utf8))
                }
            }
            return Response(
                status: .seeOther,
                headers: [
                    .location: outcome.map { "/signin?signout=\($0.rawValue)" } ?? "/signin", .cacheControl: "no-store",
                    .setCookie: SessionCookie.setCookie(nil, secure: options.secureCookies),
                ])
        }
    }

    /// The sign-in form, which shows no data; `message` is a problem, `notice` news.
    func signInPage(back: String?, user: String, message: String?, notice: String? = nil, status: HTTPResponse.Status) -> Response {
        var context: [String: Any] = ["version": assets.version, "back": Self.localBack(back), "user": user]
        if let message { context["message"] = message }
        if let notice { context["notice"] = notice }
        var response = Responses.html(assets.renderHTML("signin", TemplateContext(context)), status: status)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `back` when it is a path on this server, else `/`.
    static func localBack(_ back: String?) -> String { EditRequest.isLocal(back) && back != "/signin" ? back! : "/" }

    /// The address a sign-in is counted under: the socket's peer, or (from a trusted proxy) the
    /// last address of its `X-Forwarded-For`.
    func clientAddress(_ request: Request, options: AccountsOptions) -> String? {
        let peer = request.headers[.peerAddress]
        guard let peer, options.trustedProxies.contains(peer),
            let forwarded = request.headers[HTTPField.Name("X-Forwarded-For")!]?.split(separator: ",").last
        else { return peer }
        return forwarded.trimmingCharacters(in: .whitespaces)
    }
}

extension AccountsOptions {
    /// The largest sign-in form accepted.
    var maxFormBytes: Int { 4096 }
}
