import Foundation

/// Where a tree table lives in PostgreSQL: server, credentials, database, table and TLS mode,
/// from a `postgres://` URL and the usual environment variables.
///
/// URL parts win over `PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`, `PGDATABASE` and `PGSSLMODE`,
/// which win over the defaults (`localhost`, 5432, the login name, the user name as database).
/// The table comes from `?table=` (default `drilldown`); `sslmode` is `disable`, `allow`,
/// `prefer` (the default), `require`, `verify-ca` or `verify-full`, as libpq reads it.
///
/// ```swift
/// let here = try PostgresLocation(url: "postgres://dd@127.0.0.1:55432/music?table=albums")
/// here.table          // "albums"
/// here.description    // "postgres://dd@127.0.0.1:55432/music?table=albums" (no password)
/// ```
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    /// The nodes table; its revision and metadata live in `<table>_meta`.
    public var table: String
    public var sslMode: SSLMode
    /// The longest one database call may take (waiting for a connection, connecting, a query, the
    /// commit) before it is abandoned as unavailable: `serve --db-timeout`, default 5 s.
    public var timeout: Duration = .seconds(5)

    /// How TLS is used, as libpq's `sslmode`.
    public enum SSLMode: String, Sendable, Equatable, CaseIterable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// Why a URL or the environment does not name a usable database.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Whether `text` is meant as a PostgreSQL URL (`postgres://` or `postgresql://`).
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// Reads a `postgres://user:password@host:port/database?table=NAME&sslmode=MODE` URL, filling
    /// what it leaves out from `environment`.
    public init(url text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Invalid) {
        guard Self.isURL(text), let parts = URLComponents(string: text) else {
            throw Invalid(description: "'\(Self.redacted(text))' is not a PostgreSQL URL (postgres://user@host:port/database?table=NAME)")
        }
        func env(_ key: String) -> String? { environment[key].flatMap { $0.isEmpty ? nil : $0 } }
        host = parts.host.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? env("PGHOST") ?? "localhost"
        if let given = parts.port {
            port = given
        } else if let text = env("PGPORT") {
            guard let value = Int(text), (1 ... 65535).contains(value) else { throw Invalid(description: "PGPORT '\(text)' is not a port number") }
            port = value
        } else {
            port = 5432
        }
        user = parts.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding } ?? env("PGUSER") ?? env("USER") ?? "postgres"
        password = parts.password?.removingPercentEncoding ?? env("PGPASSWORD")
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        database = path.isEmpty ? (env("PGDATABASE") ?? user) : (path.removingPercentEncoding ?? path)
        var table = "drilldown"
        var mode = env("PGSSLMODE") ?? "prefer"
        for item in parts.queryItems ?? [] {
            switch item.name {
            case "table": table = item.value ?? ""
            case "sslmode": mode = item.value ?? ""
            case "application_name", "connect_timeout": break
            default: throw Invalid(description: "unknown URL parameter '\(item.name)' (known: table, sslmode)")
            }
        }
        guard let ssl = SSLMode(rawValue: mode) else {
            throw Invalid(description: "sslmode '\(mode)' is not one of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        sslMode = ssl
        self.table = table
        try Self.checkTable(table)
    }

    /// The connection named only by the environment: `DATABASE_URL` when set, else `PG*` variables.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(Invalid) -> PostgresLocation {
        try PostgresLocation(url: environment["DATABASE_URL"].flatMap { isURL($0) ? $0 : nil } ?? "postgres://", environment: environment)
    }

    /// Table names are lower-case identifiers, so they need no quoting and the NOTIFY channel
    /// (`drilldown_<table>`) is a plain identifier too.
    static func checkTable(_ table: String) throws(Invalid) {
        let ok = !table.isEmpty && table.utf8.count <= 40 && table.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
            && !(table.utf8.first! >= 48 && table.utf8.first! <= 57)
        guard ok else {
            throw Invalid(description: "table '\(table)' must be 1–40 lower-case letters, digits or '_', not starting with a digit")
        }
    }

    /// This location with another table.
    public func naming(table: String) throws(Invalid) -> PostgresLocation {
        try Self.checkTable(table)
        var copy = self
        copy.table = table
        return copy
    }

    /// The NOTIFY channel every instance serving this table listens on.
    public var channel: String { "drilldown_\(table)" }

    /// The URL without the password (and without `table=` when the table is empty: a database
    /// whose own tables a mapping reads).
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        var parameters = table.isEmpty ? [] : ["table=\(table)"]
        if sslMode != .prefer { parameters.append("sslmode=\(sslMode.rawValue)") }
        return "postgres://\(user)@\(hostPart):\(port)/\(database)" + (parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&"))
    }

    /// `text` with any password replaced by `***`, for messages.
    static func redacted(_ text: String) -> String {
        guard var parts = URLComponents(string: text), parts.password != nil else { return text }
        parts.password = "***"
        return parts.string ?? text
    }
}
