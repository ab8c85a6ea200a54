import DrillDownCore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// The web front end: serves a data set as iOS-like drill-down table views, an outline, columns,
/// search and a JSON API from one process; read-only, or editable over a ``DocumentModel``.
///
/// ```swift
/// let server = try WebServer(presenter: presenter, dataFolder: folder)
/// try await server.run(host: "127.0.0.1", port: 8080)   // prints http://127.0.0.1:8080/
/// ```
///
/// For in-process tests build the router and drive it with HummingbirdTesting:
/// ```swift
/// let app = Application(router: try WebServer(presenter: p, dataFolder: nil).makeRouter())
/// try await app.test(.router) { client in ... }
/// ```
public struct WebServer: Sendable {
    /// Tunables of the web app; the defaults suit every data size.
    public struct Options: Sendable {
        /// Rows a level page renders at once when the level is large.
        public var pageSize = 100
        /// Levels with more rows than this are paginated (and virtualized by the script).
        public var virtualThreshold = 200
        /// Rows an outline page renders at once.
        public var outlinePageSize = 500
        /// The most rows one API request returns.
        public var maxAPILimit = 1000
        /// The largest request body accepted, in bytes .
        public var maxBodyBytes = 16 * 1024
        /// The most search hits listed.
        public var searchLimit = 100
        /// Host names requests may be addressed to besides 127.0.0.1, localhost, [::1] and the
        /// listening address (a reverse proxy's public name); others get 421.
        public var allowedHosts: [String] = []
        /// Seconds a client gets from a request's first byte until its head and body have arrived.
        public var headerTimeout: Double = 10
        /// Seconds a connection may wait without starting a request (after opening or after its
        /// last response) before it is closed.
        public var idleTimeout: Double = 60
        /// The most `/events` streams open at once; more get 503.
        public var maxEventStreams = 64
        /// The most `/events` streams one client address (an IPv6 client's /64) holds; more get 429.
        public var maxEventStreamsPerClient = 8
        /// The most `/events` streams one browser session (`dd_session` cookie) holds; more get 429.
        public var maxEventStreamsPerSession = 4
        /// The most searches that run at once, on threads of their own (one per core by default);
        /// more wait their turn, and page requests are answered meanwhile.
        public var searchWidth = ProcessInfo.processInfo.activeProcessorCount
        /// What `/readyz` asks: `nil` when the data's storage is reachable, else why not (503).
        /// Without it `/readyz` answers like `/healthz`.
        public var readiness: (@Sendable () async -> String?)?

        /// With a model: serve its changes live (pages follow `/events`) but accept no writes: a
        /// read-only instance of data others edit (another instance on the same PostgreSQL table).
        public var readOnly = false

        /// The secret the CSRF tokens of sessions are signed with; `nil` draws a random one when
        /// the process starts. Instances behind one reverse proxy share one, so a form a page got
        /// from one instance is accepted by the others.
        public var sessionSecret: [UInt8]?

        /// Accounts (`serve --users`): every request must come from a signed-in user, who sees and
        /// changes what their role allows (see ``AccountsOptions``); `nil` lets everyone do everything.
        public var accounts: AccountsOptions?

        /// What carries presence (who is on which level) to the other instances serving the same
        /// data, on a live server with ``accounts`` (see ``DrillDownCore/PresenceRelay``); `nil`
        /// keeps it within this process.
        public var presenceRelay: (any PresenceRelay)?

        /// Seconds a shutdown (SIGTERM or SIGINT) may take: open requests and streams are given
        /// this long to end, then the process exits anyway (status 1, saying so).
        public var gracePeriod: Double = 10

        /// How long a request may take over its data's database (`--db-timeout`): from its arrival,
        /// every database call it makes ends by then (see ``DrillDownCore/RequestDeadline``).
        /// `nil` for data that is not in a database server.
        public var databaseTimeout: Duration?

        /// The defaults.
        public init() {}
    }

    var site: Site

    /// Creates the server for `presenter`'s data; images are served from `dataFolder` only
    /// (`nil`: no files are served).
    /// - Throws: when the bundled templates cannot be read or parsed.
    /// - Throws: also an ``AccountsError`` when ``Options/accounts`` names a missing or malformed users file.
    public init(presenter: Presenter, dataFolder: URL?, options: Options = Options()) throws {
        site = try Site(basePresenter: presenter, model: nil, dataFolder: dataFolder, options: options, assets: try Assets.load())
    }

    /// Creates an editable server: every request reads `model`'s current snapshot presented with
    /// `schema`; forms and the JSON API change it (with a per-session CSRF token), and `/events`
    /// streams every change to open pages.
    ///
    /// ```swift
    /// let model = DocumentModel(document: EditableDocument(source: source, schema: schema),
    ///                           actions: try ActionSet(schema: schema), save: { try save($0) })
    /// let server = try await WebServer(model: model, schema: schema, dataFolder: folder)
    /// ```
    /// - Throws: when the bundled templates cannot be read or parsed.
    public init(model: DocumentModel, schema: Schema, dataFolder: URL?, options: Options = Options()) async throws {
        let presenter = Presenter(source: await model.source, schema: schema)
        site = try Site(basePresenter: presenter, model: model, dataFolder: dataFolder, options: options, assets: try Assets.load())
        site.keepsHistory = await model.historyLog != nil
    }

    /// The router with every route and middleware, for ``run(host:port:)`` and in-process tests;
    /// it answers requests addressed to loopback names, `host` and ``Options/allowedHosts``.
    public func makeRouter(host: String = "127.0.0.1") -> Router<SiteContext> {
        site.makeRouter(hosts: HostPolicy(listenHost: host, extraNames: site.options.allowedHosts))
    }

    /// The HTTP/1 server with the connection deadlines of ``Options``.
    var serverBuilder: HTTPServerBuilder {
        let header = TimeAmount.milliseconds(Int64(max(0.05, site.options.headerTimeout) * 1000))
        let idle = TimeAmount.milliseconds(Int64(max(0.05, site.options.idleTimeout) * 1000))
        return .http1(configuration: .init(additionalChannelHandlers: [RequestDeadlineHandler(header: header, idle: idle), PeerAddressHandler()]))
    }

    /// An application bound to `host:port` (0 picks a free port) that calls `onRunning` with the
    /// URL it listens on.
    public func makeApplication(
        host: String = "127.0.0.1", port: Int = 8080, onRunning: @escaping @Sendable (String) -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var logger = Logger(label: "drilldown.web", factory: DeferredMetadataLogHandler.init)
        logger.logLevel = .warning
        let shownHost = host.contains(":") ? "[\(host)]" : host
        var live = site
        live.watchesDisconnects = true
        live.prepareSearch()
        return Application(
            router: live.makeRouter(hosts: HostPolicy(listenHost: host, extraNames: site.options.allowedHosts)),
            server: serverBuilder,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "DrillDown"),
            onServerRunning: { channel in
                let actual = channel.localAddress?.port ?? port
                onRunning("http://\(shownHost):\(actual)/")
            },
            logger: logger)
    }

    /// Serves until interrupted (SIGINT/SIGTERM); prints `http://HOST:PORT/` on standard output
    /// once the port is open.
    public func run(host: String = "127.0.0.1", port: Int = 8080) async throws {
        let app = makeApplication(host: host, port: port) { url in
            FileHandle.standardOutput.write(Data("DrillDown is serving \(url)\n".utf8))
        }
        let deadline = ShutdownDeadline(seconds: site.options.gracePeriod)
        defer { deadline.cancel() }
        try await app.runService()
    }
}
