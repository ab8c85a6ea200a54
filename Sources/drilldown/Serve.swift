import ArgumentParser
import DrillDown
import DrillDownWeb
import Foundation

/// `drilldown serve [FILE]`: the web app; with no FILE, the bundled music library.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a data set as drill-down table views in the browser (read-only unless --editable).",
        discussion: """
            Prints the URL once the server listens. Every screen has its own URL built from the TreePath
            (/l/3.0, /d/3.0.0.0.0, /outline?open=1,1.0, /columns/3.0, /search?q=screen), and a JSON API
            serves the same data (/api/level/PATH, /api/node/PATH, /api/search?q=, /api/outline).
            With --editable, pages get Edit and Add buttons and working row controls, changes are saved
            to FILE in its own format after every step, and /events streams them to every open page.
            A relational database (tables mapped by the schema's levels:) is edited in its tables, one
            transaction per step; other writers' commits appear on open pages. A schema named after
            FILE next to it (music.schema.yaml beside music.sqlite) is used when --schema is not given.
            The bundled example is never edited: --editable copies it to --data-dir (default
            $XDG_DATA_HOME/drilldown/Music or ~/.local/share/drilldown/Music) and edits the copy.
            Requests must name the server as 127.0.0.1, localhost, [::1] or --host (else 421, against
            DNS rebinding); add a reverse proxy's public name with --allow-host. Writes from pages of
            other origins are refused. Slow, half-sent and idle connections are closed (--header-timeout,
            --idle-timeout) and at most --max-event-streams pages follow /events at once.
            A PostgreSQL tree table can be served by several instances at once: each change is one
            transaction followed by NOTIFY, and every instance pushes every change to its open pages.
            /healthz answers while the process runs; /readyz answers 503 while the database is unreachable.
            """)

    @Argument(help: "A property list (XML, binary or OpenStep), JSON or YAML file, an SQLite database or a PostgreSQL URL (postgres://user@host:port/db?table=NAME; postgres:// alone reads DATABASE_URL or PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE); the bundled music library when omitted.",
              completion: .file())
    var file: String?

    @OptionGroup var reading: ReadingOptions

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Flag(name: .long, help: "Accept changes (forms, JSON API, row controls) and save them to FILE.")
    var editable = false

    @Flag(name: .long, help: "Keep no audit history of the changes (by default an --editable server records who changed what beside the data, and Undo and Redo are per user).")
    var noHistory = false

    @Option(name: .long, help: "With --editable and no FILE: the folder the bundled example is copied to and edited in.",
            completion: .directory)
    var dataDir: String?

    @Option(name: .customLong("allow-host"),
            help: ArgumentHelp("Also answer requests addressed to this host name (a reverse proxy's public name); repeatable.",
                               valueName: "name"))
    var allowHosts: [String] = []

    @Option(name: .long, help: "Seconds a client gets to send a whole request once it starts one; slower connections are closed.")
    var headerTimeout: Double = 10

    @Option(name: .long, help: "Seconds an idle connection (no request under way) stays open.")
    var idleTimeout: Double = 60

    @Option(name: .long, help: "The most pages following live changes (/events) at once; more get 503.")
    var maxEventStreams = 64

    @Option(name: .long, help: "Seconds a shutdown (SIGTERM, Ctrl-C) may take before the process exits anyway.")
    var gracePeriod: Double = 10
    @Option(name: .long, help: "The most pages one client address (an IPv6 client's /64) follows /events on at once; more get 429. Behind a reverse proxy every client has the proxy's address.")
    var maxEventStreamsPerClient = 8

    @Option(name: .long, help: "The most pages one browser session follows /events on at once; more get 429.")
    var maxEventStreamsPerSession = 4

    @Option(name: .long,
            help: ArgumentHelp("Turn on accounts: only users of this file (made with 'drilldown user add') may sign in, and each sees and changes what their role allows. Without it everyone who reaches the port may do everything.",
                               valueName: "users.yaml"))
    var users: String?

    @Option(name: .long,
            help: ArgumentHelp("With --users: take the signed-in user's name from this header (e.g. X-Forwarded-User), set by a reverse proxy at a --trusted-proxy address.",
                               valueName: "header"))
    var authHeader: String?

    @Option(name: .customLong("trusted-proxy"),
            help: ArgumentHelp("The address of a reverse proxy whose --auth-header and X-Forwarded-For are believed; its sessions' cookies are marked Secure. Repeatable.",
                               valueName: "address"))
    var trustedProxies: [String] = []

    @Option(name: [.customLong("secret-file"), .customLong("session-secret-file")],
            help: ArgumentHelp("A file holding the secret that signs sessions and their CSRF tokens (at least 16 bytes); give every instance behind one proxy the same file. Default: $DRILLDOWN_SESSION_SECRET, else a random secret per process.",
                               valueName: "file"))
    var sessionSecretFile: String?

    func validate() throws {
        guard (0 ... 65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        guard headerTimeout.isFinite, (0.1 ... 3600).contains(headerTimeout) else {
            throw ValidationError("--header-timeout must be between 0.1 and 3600 seconds.")
        }
        guard idleTimeout.isFinite, (0.1 ... 86400).contains(idleTimeout) else {
            throw ValidationError("--idle-timeout must be between 0.1 and 86400 seconds.")
        }
        guard gracePeriod.isFinite, (0 ... 3600).contains(gracePeriod) else {
            throw ValidationError("--grace-period must be between 0 and 3600 seconds.")
        }
        guard (0 ... 100_000).contains(maxEventStreams) else {
            throw ValidationError("--max-event-streams must be between 0 and 100000.")
        }
        for (flag, value) in [("--max-event-streams-per-client", maxEventStreamsPerClient),
                              ("--max-event-streams-per-session", maxEventStreamsPerSession)] where !(1 ... 100_000).contains(value) {
            throw ValidationError("\(flag) must be between 1 and 100000.")
        }
        if users == nil, authHeader != nil || !trustedProxies.isEmpty {
            throw ValidationError("--auth-header and --trusted-proxy need --users (the accounts they name).")
        }
        if authHeader != nil, trustedProxies.isEmpty {
            throw ValidationError("--auth-header needs --trusted-proxy: the header is believed only from the proxy's address.")
        }
        if let header = authHeader, header.isEmpty || !header.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) {
            throw ValidationError("--auth-header takes a header name such as X-Forwarded-User, not '\(header)'.")
        }
        for name in allowHosts where name.isEmpty || name.contains("/") || name.contains(where: \.isWhitespace) {
            throw ValidationError("--allow-host takes a host name such as drilldown.example.com, not '\(name)'.")
        }
    }

    /// The web app's tunables from the options.
    var webOptions: WebServer.Options {
        var options = WebServer.Options()
        options.allowedHosts = allowHosts
        options.headerTimeout = headerTimeout
        options.idleTimeout = idleTimeout
        options.maxEventStreams = maxEventStreams
        options.gracePeriod = gracePeriod
        options.maxEventStreamsPerClient = maxEventStreamsPerClient
        options.maxEventStreamsPerSession = maxEventStreamsPerSession
        return options
    }

    /// The shared session secret from `--session-secret-file` or `DRILLDOWN_SESSION_SECRET` (surrounding
    /// whitespace dropped), or `nil` for a per-process one.
    func sessionSecret() throws -> [UInt8]? {
        let text: String, origin: String
        if let path = sessionSecretFile {
            do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
                throw BadInput("--session-secret-file \(path): cannot read it (\(error.localizedDescription))")
            }
            origin = "--session-secret-file \(path)"
        } else if let value = ProcessInfo.processInfo.environment["DRILLDOWN_SESSION_SECRET"] {
            text = value
            origin = "DRILLDOWN_SESSION_SECRET"
        } else {
            return nil
        }
        let secret = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard secret.count >= 16 else {
            throw BadInput("\(origin): the session secret has \(secret.count) bytes; expected at least 16 (e.g. `openssl rand -hex 32`)")
        }
        return secret
    }

    func run() async throws {
        var dataFile = file ?? BundledExample.musicLibrary.path
        var schemaFile = file == nil ? BundledExample.musicSchema.path : nil
        if editable, file == nil {
            let copy = try copyBundledExample()
            dataFile = copy.appendingPathComponent("library.yaml").path
            schemaFile = copy.appendingPathComponent("schema.yaml").path
            FileHandle.standardError.write(Data("Editing the bundled example's copy in \(copy.path)\n".utf8))
        }
        let notice = LoadingNotice.start(dataFile)
        let loaded: OpenedData
        do {
            loaded = try reading.load(dataFile, defaultSchema: schemaFile)
            notice?.finish()
        } catch {
            notice?.stop()
            throw error
        }
        var options = webOptions
        options.sessionSecret = try sessionSecret()
        if let users {
            var accounts = AccountsOptions(usersFile: URL(fileURLWithPath: users))
            accounts.authHeader = authHeader
            accounts.trustedProxies = trustedProxies
            accounts.secureCookies = !trustedProxies.isEmpty
            options.accounts = accounts
        } else if editable, !["127.0.0.1", "localhost", "::1"].contains(host) {
            FileHandle.standardError.write(Data(
                "drilldown: warning: this server is editable on \(host) without accounts: anyone who reaches the port can change the data. Start it with --users users.yaml (see 'drilldown user add').\n".utf8))
        }
        if let readiness = loaded.readiness {
            options.readiness = { await Self.ping(readiness) }
            options.databaseTimeout = .milliseconds(Int64(reading.dbTimeout * 1000))
        }
        let server: WebServer
        var watching: Task<Void, Never>?
        defer { watching?.cancel() }
        // A read-only instance of a PostgreSQL table follows the others' changes like an editable
        // one (its pages update live), but answers no writes.
        let followsChanges: Bool =
            switch loaded.database {
            case .postgres, .postgresLevels: !editable
            default: false
            }
        do {
            if editable || followsChanges {
                options.readOnly = !editable
                // A document file: group commit, and changes made elsewhere pushed to open pages. A
                // database store commits each step; other writers are picked up through NOTIFY
                // (PostgreSQL) or `PRAGMA data_version` (SQLite) and pushed as external changes.
                let model = try loaded.model(listen: true, readOnly: !editable)
                if editable, !noHistory, let log = try loaded.historyLog() { await model.keepHistory(in: log) }
                watching = await loaded.follow(model)
                // With accounts, who is on which level reaches the other instances of a shared table.
                if users != nil { options.presenceRelay = try loaded.presenceRelay() }
                server = try await WebServer(
                    model: model, schema: loaded.presenter.schema, dataFolder: loaded.folder, options: options)
            } else {
                server = try WebServer(presenter: loaded.presenter, dataFolder: loaded.folder, options: options)
            }
        } catch let error as BadInput {
            throw error
        } catch let error as OpenError {
            throw error
        } catch {
            throw BadInput("cannot start the web app: \(error)")
        }
        try await server.run(host: host, port: port)
    }

    /// Whether the database answers, asked off Swift's cooperative threads (the ping blocks, up to
    /// 1 s; see `BlockingWork`).
    static func ping(_ ping: @escaping @Sendable () -> String?) async -> String? {
        await BlockingWork.run(label: "drilldown.readiness", ping)
    }

    /// The user's copy of the bundled example (made on first use, never overwritten), so the
    /// bundle itself is never edited.
    func copyBundledExample() throws -> URL {
        let folder: URL
        if let dataDir {
            folder = URL(fileURLWithPath: dataDir)
        } else {
            let environment = ProcessInfo.processInfo.environment
            let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
            folder = base.appendingPathComponent("drilldown/Music")
        }
        let bundle = BundledExample.musicLibrary.deletingLastPathComponent()
        let manager = FileManager.default
        do {
            try manager.createDirectory(at: folder, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: bundle.path) {
                let target = folder.appendingPathComponent(name)
                if !manager.fileExists(atPath: target.path) {
                    try manager.copyItem(at: bundle.appendingPathComponent(name), to: target)
                }
            }
        } catch {
            throw BadInput("cannot copy the bundled example to \(folder.path): \(error.localizedDescription)")
        }
        return folder
    }
}
