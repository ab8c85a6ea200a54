import DrillDownCore
import Foundation
import Hummingbird

/// Everything a request needs: the data, the templates and assets, the options.
///
/// On an editable server the data is a ``DocumentModel``; each request reads the snapshot
/// ``SnapshotMiddleware`` took when it arrived, so one page never mixes two revisions.
struct Site: Sendable {
    /// The data the server started with (and always serves when read-only).
    let basePresenter: Presenter
    /// The model edits go through; `nil` for a read-only server.
    let model: DocumentModel?
    /// The folder images are served from; `nil` serves none.
    let dataFolder: URL?
    /// Tunables.
    let options: WebServer.Options
    /// Templates, stylesheet and script.
    var assets: Assets
    /// Recently built outlines, keyed by their URL state.
    let outlines = OutlineCache(capacity: 4)
    /// The sections of recently shown levels, per data revision.
    let sections = SectionCache()
    /// The display orders of sorted levels, per data revision.
    let orders = OrderCache()
    /// The Sort menu's fields of recently shown levels, per data revision.
    let sortFields = SortFieldCache()
    /// The Go to field's example path, per data revision.
    let goExamples = GoExampleCache()
    /// Level pages already rendered, per data revision.
    let pages = PageCache()
    /// The CSRF tokens of sessions: under ``WebServer/Options/sessionSecret``, or this process's own secret.
    let csrf: CSRFTokens
    /// The open `/events` streams, capped by ``WebServer/Options/maxEventStreams``.
    let eventStreams: StreamSlots
    /// The users file and access views of a server with accounts; `nil` without.
    let accounts: AccountStore?
    /// Who is on which level: on a live server with accounts only (see ``PresenceHub``).
    let presence: PresenceHub?
    /// Signed-in sessions recently recognised, with their CSRF tokens (see ``SessionCache``).
    let sessions = SessionCache()
    /// Failed sign-ins, to slow down guessing.
    let throttle = SignInThrottle()
    /// Where sign-ins' bcrypt runs: off the request threads, bounded.
    let passwordChecks = PasswordChecks()
    /// The threads searches run on, at most ``WebServer/Options/searchWidth`` at once.
    let searches: SearchPool
    /// Whether requests come from a real connection (not HummingbirdTesting's router), so a
    /// search can watch for its client going away.
    var watchesDisconnects = false
    /// Whether the model keeps an audit history (see ``DocumentModel/keepHistory(in:)``): the
    /// History screens, Revert, and Undo and Redo per user.
    var keepsHistory = false

    /// Rows, titles, details of the current request's snapshot.
    var presenter: Presenter { RequestState.current?.presenter ?? basePresenter }

    var source: any Source { presenter.source }

    /// Whether writes are accepted.
    /// On a server with accounts, for the request being answered: whether its user may change
    /// anything at all (a viewer gets no Edit buttons).
    var isEditable: Bool { model != nil && !options.readOnly && (RequestState.current?.access?.mayChangeSomewhere ?? true) }

    /// Whether pages follow changes (`/events`): over a model, editable or not.
    var isLive: Bool { model != nil }

    init(basePresenter: Presenter, model: DocumentModel?, dataFolder: URL?, options: WebServer.Options, assets: Assets) throws {
        self.basePresenter = basePresenter
        self.model = model
        self.dataFolder = dataFolder
        self.options = options
        self.assets = assets
        csrf = options.sessionSecret.map { CSRFTokens(secret: $0) } ?? CSRFTokens()
        eventStreams = StreamSlots(
            capacity: options.maxEventStreams, perAddress: options.maxEventStreamsPerClient, perSession: options.maxEventStreamsPerSession)
        searches = SearchPool(width: options.searchWidth)
        accounts = try options.accounts.map { try AccountStore(url: $0.usersFile) }
        presence = accounts != nil && model != nil ? PresenceHub(relay: options.presenceRelay) : nil
        if let presence, let model { presence.follow(model) }
    }

    /// The router with every route; middleware order is outermost first. `hosts` are the
    /// names requests may be addressed to.
    func makeRouter(hosts: HostPolicy) -> Router<SiteContext> {
        let router = Router(context: SiteContext.self, options: .autoGenerateHeadEndpoints)
        if basePresenter.source is any FallibleSource { router.add(middleware: BlockingReadsMiddleware()) }
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: HostCheckMiddleware(policy: hosts))
        router.add(middleware: ErrorPageMiddleware(site: self))
        router.add(middleware: WriteGuardMiddleware(editable: isEditable, accounts: accounts != nil, maxBodyBytes: options.maxBodyBytes, hosts: hosts))
        // The accounts' authenticator runs first in the snapshot's step (see ``SnapshotMiddleware``).
        let authenticator = accounts.flatMap { accounts in
            options.accounts.map { AccountsAuthenticator(accounts: accounts, options: $0, signer: csrf, sessions: sessions) }
        }
        router.add(middleware: SnapshotMiddleware(site: self, authenticator: authenticator))
        addPageRoutes(to: router)
        addAPIRoutes(to: router)
        addFileRoutes(to: router)
        addExportRoutes(to: router)
        addHealthRoutes(to: router)
        if let accounts, let settings = options.accounts { addAccountRoutes(to: router, accounts: accounts, options: settings) }
        if isEditable { addEditRoutes(to: router) }
        if keepsHistory { addHistoryRoutes(to: router) }
        if isLive { addEventRoutes(to: router) }
        if let presence, isEditable { addPresenceRoutes(to: router, hub: presence) }
        return router
    }
}
