import DrillDownCore
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// Carries presence between the instances serving one PostgreSQL table: each ``PresenceBeat`` is
/// sent as JSON with `NOTIFY drilldown_<table>_presence` and heard by every instance listening
/// there (through a ``PostgresListener`` of its own). Nothing is stored: a beat missed while the
/// database was away is made up for by the next heartbeat, and a page whose instance stopped
/// expires (see ``Presence/expiry``).
public final class PostgresPresenceRelay: PresenceRelay {
    /// The channel: `drilldown_<table>_presence`.
    public let channel: String
    /// The listener, to wait for its LISTEN (``PostgresListener/listening()``).
    public let listener: PostgresListener
    private let publisher: Publisher
    private let stream: (stream: AsyncStream<PresenceBeat>, continuation: AsyncStream<PresenceBeat>.Continuation)

    /// Starts listening for the presence of the other instances serving `location`'s table (on
    /// `<data channel>_presence`, the data channel being `location`'s table's unless given).
    public init(_ location: PostgresLocation, dataChannel: String? = nil) throws(PostgresStoreError) {
        let channel = (dataChannel ?? location.channel) + "_presence"
        self.channel = channel
        let stream = AsyncStream<PresenceBeat>.makeStream(bufferingPolicy: .bufferingNewest(256))
        self.stream = stream
        let beats = stream.continuation
        listener = try PostgresListener(location, channel: channel) { payload in
            if let beat = try? JSONDecoder().decode(PresenceBeat.self, from: Data(payload.utf8)) { beats.yield(beat) }
        }
        publisher = Publisher(configuration: try PostgresSession.configuration(location), channel: channel)
    }

    public func publish(_ beat: PresenceBeat) async {
        guard let data = try? JSONEncoder().encode(beat) else { return }
        await publisher.send(String(decoding: data, as: UTF8.self))
    }

    public var beats: AsyncStream<PresenceBeat> { stream.stream }

    /// Stops listening and publishing.
    public func stop() {
        listener.stop()
        stream.continuation.finish()
    }

    deinit { stop() }

    /// The connection beats are sent on, made when first needed and again after it failed.
    private actor Publisher {
        let configuration: PostgresConnection.Configuration
        let channel: String
        let logger = Logger(label: "drilldown.postgres.presence", factory: { _ in SwiftLogNoOpLogHandler() })
        var connection: PostgresConnection?

        init(configuration: PostgresConnection.Configuration, channel: String) {
            self.configuration = configuration
            self.channel = channel
        }

        func send(_ payload: String) async {
            do {
                let connection = try await connected()
                _ = try await connection.query("SELECT pg_notify(\(channel), \(payload))", logger: logger).get()
            } catch {
                if let failed = connection {
                    let _: EventLoopFuture<Void> = failed.close()
                }
                connection = nil
            }
        }

        private func connected() async throws -> PostgresConnection {
            if let connection, !connection.isClosed { return connection }
            let made = try await PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 3, logger: logger).get()
            // Another send may have connected meanwhile (the actor was free during the await).
            if let connection, !connection.isClosed {
                let _: EventLoopFuture<Void> = made.close()
                return connection
            }
            connection = made
            return made
        }
    }
}
