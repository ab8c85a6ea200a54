import DrillDownCore

/// What one request sees: the snapshot of the data it was answered from, the revision of that
/// snapshot and the session's CSRF token, set by ``SnapshotMiddleware`` for the whole request.
struct RequestState: Sendable {
    /// Rows, titles and details of the snapshot.
    var presenter: Presenter
    /// The model's revision the snapshot belongs to (0 for a read-only server).
    var revision: Int
    /// The CSRF token of the session in the `dd_session` cookie (see ``CSRFTokens``), empty on a read-only server.
    var csrf: String
    /// What Undo and Redo can do at ``revision`` (nothing on a read-only server).
    var history = HistoryState.empty
    /// What a form's undo or redo did, for the page after its redirect (see ``StepNotice``).
    var notice: StepNotice?
    /// On a server with accounts: who asks, and what they may do in the snapshot (the presenter
    /// lists only what they may reach); `nil` without accounts.
    var user: SignedInUser? = nil
    /// What ``user`` may do; `nil` without accounts.
    var access: AccessView? = nil
    /// The signed-in session's cache entry, whose ``SessionCache/Entry/serial`` cached pages joined
    /// with ``csrf`` are kept under (see ``PageCache``); `nil` without a session cookie.
    var session: SessionCache.Entry? = nil

    /// The state of the request being answered; `nil` outside a request (tests building pages directly).
    @TaskLocal static var current: RequestState?
}
