import Dispatch
import DrillDownCore
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
/// thread of Swift's cooperative pool); the calling thread blocks on the future. Nothing the
/// event loop does waits for the caller or for any Swift task, so the wait cannot deadlock it,
/// however few cooperative threads there are (two on a 2-core machine): this is why the store
/// does not use `PostgresClient`, whose pool needs a running task to make progress.
///
/// **No wait is unbounded.** Each ``run(timeout:_:)`` has a deadline (the location's
/// ``PostgresLocation/timeout``, `serve --db-timeout`): waiting for a free connection,
/// connecting and every query wait at most until then. A call that runs out of time closes its
/// connection (which fails whatever it still had in flight) and throws an *unavailable* error,
/// so a server that stops answering without closing its sockets costs a request its deadline,
/// never the instance. Each call takes a connection of its own for its duration (at most `size`
/// at once), made on first use; a closed or failed connection is replaced on the next call, so
/// the store reconnects by itself after the server restarts.
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
    private let idle: NIOLockedValueBox<[Pooled?]>
    /// One permit per connection.
    private let permits: DispatchSemaphore
    /// The last failed connection attempt: when, and why. For ``retryPause`` after it, calls fail
    /// at once with the same reason instead of trying again (a server that is down would otherwise
    /// be asked thousands of times a second by a busy instance, which slows its own recovery).
    private let lastFailure = NIOLockedValueBox<(at: ContinuousClock.Instant, error: PostgresStoreError)?>(nil)
    /// How long calls fail at once after a failed connection attempt.
    static let retryPause: Duration = .milliseconds(50)

    /// The deadline of the call running on this thread (task), read by every wait inside it.
    @TaskLocal static var deadline: DispatchTime?
    /// The connection the running call uses, watched for closing (see ``ConnectionWatch``).
    @TaskLocal static var watch: ConnectionWatch?

    /// A connection and its watch.
    struct Pooled {
        let connection: PostgresConnection
        let watch: ConnectionWatch
    }

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
    /// closed), waiting while all are in use; everything inside must end within `timeout` (the
    /// location's by default), or the call fails as unavailable. Must not be called on an event
    /// loop thread.
    func run<T>(timeout: Duration? = nil, _ body: (PostgresConnection) throws -> T) throws(PostgresStoreError) -> T {
        var limit = timeout ?? location.timeout
        // A request's own deadline comes first: time it spent waiting for its turn counts.
        if timeout == nil, let requestEnd = RequestDeadline.current { limit = max(.zero, min(limit, requestEnd - .now)) }
        let deadline = DispatchTime.now() + .nanoseconds(Int(min(limit.components.seconds, 86_400) * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000))
        guard permits.wait(timeout: deadline) == .success else {
            throw PostgresStoreError(location, "no connection to PostgreSQL was free in time (every one is waiting for the server)", unavailable: true)
        }
        defer { permits.signal() }
        var pooled = idle.withLockedValue { $0.popLast() } ?? nil
        defer { idle.withLockedValue { [pooled] in $0.append(pooled) } }
        do {
            return try Self.$deadline.withValue(deadline) {
                if pooled == nil || pooled?.connection.isClosed == true || pooled?.watch.isClosed == true {
                    pooled?.connection.closeSoon()
                    pooled = nil
                    if let recent = lastFailure.withLockedValue({ $0 }), ContinuousClock.now - recent.at < Self.retryPause {
                        throw recent.error
                    }
                    let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
                    let connecting = PostgresConnection.connect(on: eventLoop, configuration: configuration, id: 1, logger: logger)
                    do {
                        let connection = try connecting.wait(until: deadline) {
                            // A connection made after the deadline is closed as soon as it exists.
                            connecting.whenSuccess { late in late.closeSoon() }
                        }
                        pooled = Pooled(connection: connection, watch: ConnectionWatch(connection))
                        lastFailure.withLockedValue { $0 = nil }
                    } catch {
                        let failure = PostgresStoreError(location, error)
                        if failure.unavailable, !(error is CallTimedOut) { lastFailure.withLockedValue { $0 = (.now, failure) } }
                        throw failure
                    }
                }
                let current = pooled!
                return try Self.$watch.withValue(current.watch) { try body(current.connection) }
            }
        } catch {
            let failure = PostgresStoreError(location, error)
            if failure.unavailable || error is CallTimedOut {
                // Fails whatever is still in flight on it; the next call connects again.
                pooled?.connection.closeSoon()
                pooled = nil
            }
            throw failure
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    /// When the connection fails or the deadline passes while COMMIT is under way, whether the
    /// transaction committed is unknown: the error says so (``PostgresStoreError/outcomeUnknown``).
    func transaction<T>(isolation: String = "READ COMMITTED", timeout: Duration? = nil, _ body: (PostgresConnection) throws -> T) throws(PostgresStoreError) -> T {
        try run(timeout: timeout) { connection in
            try connection.execute(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger)
            let result: T
            do {
                result = try body(connection)
            } catch {
                if !connection.isClosed { try? connection.execute("ROLLBACK", logger) }
                throw error
            }
            do {
                try connection.execute("COMMIT", logger)
            } catch {
                var failure = PostgresStoreError(location, error)
                // A server's answer (an error) means it rolled back; no answer means nobody knows.
                if failure.unavailable { failure.outcomeUnknown = true }
                throw failure
            }
            return result
        }
    }

    /// Whether the server answers a trivial query now (for `/readyz`).
    func ping() -> String? {
        do {
            // A short deadline of its own: a readiness probe must answer quickly either way.
            try run(timeout: min(location.timeout, .seconds(1))) { connection in try connection.execute("SELECT 1", logger) }
            return nil
        } catch {
            return error.description
        }
    }

    /// Closes the connections not in use (those in use are closed when they come back and are dropped).
    func close() {
        let open = idle.withLockedValue { slots -> [PostgresConnection] in
            defer { slots = slots.map { _ in nil } }
            return slots.compactMap { $0?.connection }
        }
        for connection in open { connection.closeSoon() }
    }

    // postgres-nio requires a connection to be closed before it goes away.
    deinit { close() }
}

extension PostgresConnection {
    /// The rows of `query`, waiting for them until the call's deadline (see ``PostgresSession``).
    func rows(_ query: PostgresQuery, _ logger: Logger) throws -> [PostgresRow] {
        try bounded(self.query(query, logger: logger)).rows
    }

    /// Runs `query` for its effect, waiting for it until the call's deadline.
    func execute(_ query: PostgresQuery, _ logger: Logger) throws {
        _ = try bounded(self.query(query, logger: logger))
    }

    /// Closes the connection without waiting, keeping it alive until it has closed (postgres-nio
    /// requires a connection to be closed before it goes away).
    func closeSoon() {
        let closing: EventLoopFuture<Void> = close()
        closing.whenComplete { _ in withExtendedLifetime(self) {} }
    }

    /// `future`'s value, waiting at most until the running call's deadline; when it passes, this
    /// connection is closed (failing what it had in flight) and the wait throws ``CallTimedOut``.
    func bounded<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        try future.wait(until: PostgresSession.deadline, watching: PostgresSession.watch) { self.closeSoon() }
    }
}

/// A call whose connection closed before its answer came.
struct ConnectionLost: Error, CustomStringConvertible {
    var description: String { "the connection to PostgreSQL closed" }
}

/// Whether a connection has closed, and the wait to wake when it does (one call at a time uses a
/// connection, so one waiter at most).
final class ConnectionWatch: Sendable {
    private let state = NIOLockedValueBox<(closed: Bool, waiter: DispatchSemaphore?)>((false, nil))

    init(_ connection: PostgresConnection) {
        connection.closeFuture.whenComplete { [weak self] _ in self?.markClosed() }
    }

    var isClosed: Bool { state.withLockedValue { $0.closed } }

    /// Wakes `waiter` when the connection closes (at once when it has).
    func begin(_ waiter: DispatchSemaphore) {
        let closed = state.withLockedValue { s -> Bool in
            s.waiter = waiter
            return s.closed
        }
        if closed { waiter.signal() }
    }

    func end() { state.withLockedValue { $0.waiter = nil } }

    private func markClosed() {
        let waiter = state.withLockedValue { s -> DispatchSemaphore? in
            s.closed = true
            return s.waiter
        }
        waiter?.signal()
    }
}

/// A database call that did not end before its deadline (``PostgresLocation/timeout``).
struct CallTimedOut: Error, CustomStringConvertible {
    var description: String { "no answer from PostgreSQL before the deadline" }
}

extension EventLoopFuture where Value: Sendable {
    /// The value, waiting at most until `deadline` (forever when `nil`); when it passes, `abandon`
    /// runs and the wait throws ``CallTimedOut``. The future may still complete later, unobserved.
    ///
    /// With a `watch`, the wait also ends when the connection closes: a query sent in the moment
    /// the server went away (`pg_ctl stop -m immediate`) could otherwise wait for its deadline
    /// although the connection is gone (seen: about one such query per kill, each holding the
    /// model for the whole `--db-timeout`).
    func wait(until deadline: DispatchTime?, watching watch: ConnectionWatch? = nil, abandon: () -> Void) throws -> Value {
        guard let deadline else { return try wait() }
        let done = DispatchSemaphore(value: 0)
        let outcome = NIOLockedValueBox<Result<Value, any Error>?>(nil)
        whenComplete { result in
            outcome.withLockedValue { $0 = result }
            done.signal()
        }
        watch?.begin(done)
        defer { watch?.end() }
        let ended = done.wait(timeout: deadline) == .success
        if let result = outcome.withLockedValue({ $0 }) { return try result.get() }
        abandon()
        if ended, watch?.isClosed == true { throw ConnectionLost() }
        throw CallTimedOut()
    }
}
