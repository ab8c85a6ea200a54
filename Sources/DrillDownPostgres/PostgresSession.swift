import Dispatch
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// A pool of PostgreSQL connections used synchronously: the bridge between the synchronous
/// ``DrillDownCore/EditingStore`` protocol and postgres-nio.
///
/// Queries run on a connection's own NIO event loop (a thread of NIO's shared group, never a
/// thread of Swift's cooperative pool); the calling thread blocks on the future with `wait()`.
/// Nothing the event loop does waits for the caller or for any Swift task, so the wait cannot
/// deadlock it, however few cooperative threads there are (two on a 2-core machine): this is why
/// the store does not use `PostgresClient`, whose pool needs a running task to make progress.
/// Each call takes a connection of its own for its duration (at most `size` at once; more callers
/// wait for one), made on first use; a closed or failed connection is replaced on the next call,
/// so the store reconnects by itself after the server restarts.
final class PostgresSession: Sendable {
    let location: PostgresLocation
    let configuration: PostgresConnection.Configuration
    let logger: Logger
    /// The connections an instance's snapshot reads pages on at once (tree tables and mapped
    /// tables); writes go one after another on a session of one connection.
    static let readConnections = 4

    /// How many connections it opens at most.
    let size: Int
    /// The connections not in use (`nil`: a slot not connected yet, or dropped).
    private let idle: NIOLockedValueBox<[PostgresConnection?]>
    /// One permit per connection.
    private let permits: DispatchSemaphore

    init(_ location: PostgresLocation, connections: Int = 1) throws(PostgresStoreError) {
        self.location = location
        configuration = try Self.configuration(location)
        logger = Logger(label: "drilldown.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        size = max(1, connections)
        idle = NIOLockedValueBox(Array(repeating: nil, count: max(1, connections)))
        permits = DispatchSemaphore(value: max(1, connections))
    }

    /// The connection settings for `location`, TLS as its `sslmode` asks.
    static func configuration(_ location: PostgresLocation) throws(PostgresStoreError) -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        do {
            var settings = TLSConfiguration.makeClientConfiguration()
            switch location.sslMode {
            case .disable: tls = .disable
            case .allow, .prefer:
                settings.certificateVerification = .none
                tls = .prefer(try NIOSSLContext(configuration: settings))
            case .require:
                settings.certificateVerification = .none
                tls = .require(try NIOSSLContext(configuration: settings))
            case .verifyCA:
                settings.certificateVerification = .noHostnameVerification
                tls = .require(try NIOSSLContext(configuration: settings))
            case .verifyFull:
                tls = .require(try NIOSSLContext(configuration: settings))
            }
        } catch {
            throw PostgresStoreError(location, "cannot set up TLS: \(error)")
        }
        var configuration = PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: tls)
        configuration.options.connectTimeout = .seconds(3)
        return configuration
    }

    /// Runs `body` with a connection of its own (connecting first when the slot has none or it
    /// closed), waiting while all are in use. Must not be called on an event loop thread.
    func run<T>(_ body: (PostgresConnection) throws -> T) throws(PostgresStoreError) -> T {
        permits.wait()
        defer { permits.signal() }
        var connection = idle.withLockedValue { $0.popLast() } ?? nil
        defer { idle.withLockedValue { [connection] in $0.append(connection) } }
        do {
            if connection == nil || connection?.isClosed == true {
                connection = try PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger
                ).wait()
            }
            return try body(connection!)
        } catch {
            let failure = PostgresStoreError(location, error)
            if failure.unavailable {
                try? connection?.close().wait()
                connection = nil
            }
            throw failure
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(isolation: String = "READ COMMITTED", _ body: (PostgresConnection) throws -> T) throws(PostgresStoreError) -> T {
        try run { connection in
            _ = try connection.query(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger: logger).wait()
            do {
                let result = try body(connection)
                _ = try connection.query("COMMIT", logger: logger).wait()
                return result
            } catch {
                if !connection.isClosed { _ = try? connection.query("ROLLBACK", logger: logger).wait() }
                throw error
            }
        }
    }

    /// Whether the server answers a trivial query now (for `/readyz`).
    func ping() -> String? {
        do {
            try run { connection in _ = try connection.query("SELECT 1", logger: logger).wait() }
            return nil
        } catch {
            return error.description
        }
    }

    /// Closes the connections not in use (those in use are closed when they come back and are dropped).
    func close() {
        let open = idle.withLockedValue { slots -> [PostgresConnection] in
            defer { slots = slots.map { _ in nil } }
            return slots.compactMap { $0 }
        }
        for connection in open { try? connection.close().wait() }
    }

    // postgres-nio requires a connection to be closed before it goes away.
    deinit { close() }
}

extension PostgresConnection {
    /// The rows of `query`, waiting for them (see ``PostgresSession``).
    func rows(_ query: PostgresQuery, _ logger: Logger) throws -> [PostgresRow] {
        try self.query(query, logger: logger).wait().rows
    }

    /// Runs `query` for its effect, waiting for it.
    func execute(_ query: PostgresQuery, _ logger: Logger) throws {
        _ = try self.query(query, logger: logger).wait()
    }
}
