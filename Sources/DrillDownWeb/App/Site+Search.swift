import DrillDownCore
import Hummingbird

extension Site {
    /// A search under way on the ``SearchPool``.
    struct RunningSearch: Sendable {
        /// The query's first `limit` hits, when they were found before the search ended (it is
        /// still counting the rest); `nil` when it ended first.
        var early: [NodeID]?
        /// The whole search: its hits and total.
        var task: Task<SearchResult, any Error>
    }

    /// Searches the request's snapshot on the ``SearchPool``, off the request handlers' threads.
    ///
    /// On a live server (``watchesDisconnects``) the search is cancelled when its client closes
    /// the connection, so a page that went away stops using CPU; such a response ends its
    /// connection (`Connection: close`, see ``closesConnection(_:)``).
    /// - Throws: `CancellationError` when the client went away.
    func search(_ query: SearchQuery, request: Request) async throws -> SearchResult {
        try await startSearch(query, request: request).task.value
    }

    /// Starts a search and returns once its first `limit` hits are found or it ended, whichever
    /// comes first, so a page can send the first hits while the rest are counted. Cancelled,
    /// like ``search(_:request:)``, when the client goes away meanwhile; afterwards the caller
    /// cancels ``RunningSearch/task`` when its client goes.
    func startSearch(_ query: SearchQuery, request: Request) async throws -> RunningSearch {
        let source = self.source
        // A reader who may not reach some rows: every hit is found, and those hidden are left out
        // of the hits and the count (see ``AccessView/filter(_:limit:in:)``).
        if let access = RequestState.current?.access, access.hidesRows {
            var all = query
            all.limit = .max
            let whole = try await runSearch(all, request: request).task
            let task = Task {
                try await withTaskCancellationHandler {
                    access.filter(try await whole.value, limit: query.limit, in: source)
                } onCancel: { whole.cancel() }
            }
            return RunningSearch(early: nil, task: task)
        }
        return try await runSearch(query, request: request)
    }

    private func runSearch(_ query: SearchQuery, request: Request) async throws -> RunningSearch {
        let source = self.source
        let pool = searches
        let early = ResultBox<[NodeID]?>()
        let task = Task {
            defer { early.set(.success(nil)) }
            return try await pool.run { isCancelled in
                try source.find(query, until: isCancelled, firstHits: { early.set(.success($0)) })
            }
        }
        let wait: @Sendable () async -> [NodeID]? = {
            await withTaskCancellationHandler { (try? await early.result.get()) ?? nil } onCancel: { task.cancel() }
        }
        let first = canWatchDisconnect(request) ? try await request.body.consumeWithCancellationOnInboundClose { _ in await wait() } : await wait()
        return RunningSearch(early: first, task: task)
    }

    /// Builds the title index of a document being served, in the background on the
    /// ``SearchPool``, so the first searches typed in the live search scan it instead of walking
    /// the whole tree (seconds on a million rows).
    func prepareSearch() {
        guard let document = source.documentSource else { return }
        let pool = searches
        Task { _ = try? await pool.run { _ in document.prepareSearch() } }
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
