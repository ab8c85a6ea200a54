import DrillDownCore
import Hummingbird

extension Site {
    /// Searches the request's snapshot on the ``SearchPool``, off the request handlers' threads.
    ///
    /// On a live server (``watchesDisconnects``) the search is cancelled when its client closes
    /// the connection, so a page that went away stops using CPU; such a response ends its
    /// connection (`Connection: close`, see ``closesConnection(_:)``).
    /// - Throws: `CancellationError` when the client went away.
    func search(_ query: SearchQuery, request: Request) async throws -> SearchResult {
        let source = self.source
        let pool = searches
        let scan = { try await pool.run { isCancelled in try source.find(query, until: isCancelled) } }
        guard canWatchDisconnect(request) else { return try await scan() }
        return try await request.body.consumeWithCancellationOnInboundClose { _ in try await scan() }
    }

    /// Whether the search of `request` can be cancelled by its connection closing: on a live
    /// server, with a request body nothing has read (a GET or HEAD without `Transfer-Encoding`,
    /// which ``WriteGuardMiddleware`` would have collected).
    func canWatchDisconnect(_ request: Request) -> Bool {
        watchesDisconnects && (request.method == .get || request.method == .head) && request.headers[.transferEncoding] == nil
    }

    /// `response` marked `Connection: close` when the search behind it watched its connection
    /// (Hummingbird ends a connection whose inbound side was watched).
    func closesConnection(_ response: Response, _ request: Request) -> Response {
        guard canWatchDisconnect(request) else { return response }
        var response = response
        response.headers[.connection] = "close"
        return response
    }
}
