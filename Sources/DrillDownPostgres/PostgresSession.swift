import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// One PostgreSQL connection used synchronously: the bridge between the synchronous
/// ``DrillDownCore/EditingStore`` protocol and postgres-nio.
///
/// Queries run on the connection's own NIO event loop (a thread of NIO's shared group, never a
/// thread of Swift's cooperative pool); the calling thread blocks on the future with `wait()`.
/// Nothing the event loop does waits for the caller or for any Swift task, so the wait cannot
/// deadlock it, however few cooperative threads there are (two on a 2-core machine): this is why
/// the store does not use `PostgresClient`, whose pool needs a running task to make progress.
/// Calls are serialized by a lock; a closed connection is replaced on the next call, so the
/// store reconnects by itself after the server restarts.
final class PostgresSession: Sendable {
    let location: PostgresLocation
    let configuration: PostgresConnection.Configuration
    let logger: Logger
    let eventLoop: any EventLoop
    private let current = NIOLockedValueBox<PostgresConnection?>(nil)
    private let serial = NIOLock()

    init(_ location: PostgresLocation) throws(PostgresStoreError) {
        self.location = location
        configuration = try Self.configuration(location)
        logger = Logger(label: "drilldown.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        eventLoop = MultiThreadedEventLoopGroup.singleton.next()
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

    /// Runs `body` with the open connection (connecting first when there is none or it closed),
    /// one caller at a time. Must not be called on an event loop thread.
    func run<T>(_ body: (PostgresConnection) throws -> T) throws(PostgresStoreError) -> T {
        serial.lock()
        defer { serial.unlock() }
        do {
            return try body(try connection())
        } catch {
            let failure = PostgresStoreError(location, error)
            if failure.unavailable { drop() }
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

    func close() {
        serial.withLock { drop() }
    }

    // postgres-nio requires a connection to be closed before it goes away.
    deinit { drop() }

    private func connection() throws -> PostgresConnection {
        if let open = current.withLockedValue({ $0 }), !open.isClosed { return open }
        let fresh = try PostgresConnection.connect(on: eventLoop, configuration: configuration, id: 1, logger: logger).wait()
        current.withLockedValue { $0 = fresh }
        return fresh
    }

    private func drop() {
        let old = current.withLockedValue { value -> PostgresConnection? in
            defer { value = nil }
            return value
        }
        if let old { try? old.close().wait() }
    }
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
