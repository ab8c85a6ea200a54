import Hummingbird

/// Turns every failure into a friendly answer: an HTML error page with a way home, or JSON
/// `{"error": "..."}` for `/api/` requests and for scripts that ask only for JSON (a form posted
/// by app.js), always with the right status.
struct ErrorPageMiddleware<Context: RequestContext>: RouterMiddleware {
    let site: Site

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch is CancellationError {
            // The client went away (a search it asked for was stopped): nobody reads this answer.
            return Response(status: .serviceUnavailable, headers: [.connection: "close", .cacheControl: "no-store"])
        } catch let error as WebError {
            return try respond(to: request, error)
        } catch let error as HTTPError {
            let message = error.body ?? (error.status == .notFound ? "There is nothing at this address." : error.status.reasonPhrase)
            return try respond(to: request, WebError(status: error.status, message: message, headers: error.headers))
        } catch {
            context.logger.error("request failed: \(error)")
            return try respond(to: request, WebError(status: .internalServerError, message: "Something went wrong on the server."))
        }
    }

    func respond(to request: Request, _ error: WebError) throws -> Response {
        var response: Response
        let accept = request.headers[.accept] ?? ""
        if request.uri.path.hasPrefix("/api/") || (accept.contains("application/json") && !accept.contains("text/html")) {
            response = try Responses.json(ErrorBody(error: error.message, outcome: error.outcome, field: error.field), status: error.status)
        } else {
            response = Responses.html(ErrorPage(site: site, error: error).render(), status: error.status)
        }
        for field in error.headers { response.headers.append(field) }
        return response
    }
}

/// The JSON answer of a failure: `{"error": "…"}`, `"outcome": "unknown"` when a write may or
/// may not have been stored, and `"field": "length"` when a form field's value was refused.
struct ErrorBody: Encodable {
    var error: String
    var outcome: String?
    var field: String?
}
