import DrillDownCore

/// What one request sees: the snapshot of the data it was answered from, the revision of that
/// snapshot and the session's CSRF token, set by ``SnapshotMiddleware`` for the whole request.
///
/// The fields live in one shared, immutable box: a request reads ``current`` many times and each
/// read copies the state, which is then one retain instead of one per field (with accounts, the
/// user, their access view and session made those copies a measurable part of a cached page).
struct RequestState: Sendable {
    private final class Fields: Sendable {
        let presenter: Presenter
        let revision: Int
        let csrf: String
        let history: HistoryState
        let notice: StepNotice?
        let user: SignedInUser?
        let access: AccessView?
        let session: SessionCache.Entry?

        init(
            presenter: Presenter, revision: Int, csrf: String, history: HistoryState, notice: StepNotice?, user: SignedInUser?,
            access: AccessView?, session: SessionCache.Entry?
        ) {
            self.presenter = presenter
            self.revision = revision
            self.csrf = csrf
            self.history = history
            self.notice = notice
            self.user = user
            self.access = access
            self.session = session
        }
    }

    private var fields: Fields

    init(
        presenter: Presenter, revision: Int, csrf: String, history: HistoryState = .empty, notice: StepNotice? = nil, user: SignedInUser? = nil,
        access: AccessView? = nil, session: SessionCache.Entry? = nil
    ) {
        fields = Fields(
            presenter: presenter, revision: revision, csrf: csrf, history: history, notice: notice, user: user, access: access, session: session)
    }

    /// Rows, titles and details of the snapshot.
    var presenter: Presenter { fields.presenter }
    /// The model's revision the snapshot belongs to (0 for a read-only server).
    var revision: Int { fields.revision }
    /// The CSRF token of the session in the `dd_session` cookie (see ``CSRFTokens``), empty on a read-only server.
    var csrf: String {
        get { fields.csrf }
        set {
            fields = Fields(
                presenter: presenter, revision: revision, csrf: newValue, history: history, notice: notice, user: user, access: access,
                session: session)
        }
    }
    /// What Undo and Redo can do at ``revision`` (nothing on a read-only server).
    var history: HistoryState { fields.history }
    /// What a form's undo or redo did, for the page after its redirect (see ``StepNotice``).
    var notice: StepNotice? { fields.notice }
    /// On a server with accounts: who asks, and what they may do in the snapshot (the presenter
    /// lists only what they may reach); `nil` without accounts.
    var user: SignedInUser? { fields.user }
    /// What ``user`` may do; `nil` without accounts.
    var access: AccessView? { fields.access }
    /// The signed-in session's cache entry, whose ``SessionCache/Entry/serial`` cached pages joined
    /// with ``csrf`` are kept under (see ``PageCache``); `nil` without a session cookie.
    var session: SessionCache.Entry? { fields.session }

    /// The state of the request being answered; `nil` outside a request (tests building pages directly).
    @TaskLocal static var current: RequestState?
}
