import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// Follows `NOTIFY drilldown_<table>` on a connection of its own, reconnecting every half second
/// while the server is away, and keeps the highest revision announced.
///
/// Stores read ``state`` (no query) to decide whether another instance changed the table. Each
/// time the connection is made again ``State/generation`` grows, so a store also checks the
/// revision itself after an outage, when notifications may have been missed.
public final class PostgresListener: Sendable {
    /// What has been heard so far.
    public struct State: Sendable, Equatable {
        /// The highest revision any instance announced.
        public var announced: Int64 = 0
        /// Whether the LISTEN connection is up.
        public var connected = false
        /// How many times it has been (re)connected.
        public var generation = 0
        /// How many notifications have come.
        public var heard = 0
    }

    let location: PostgresLocation
    private let box = NIOLockedValueBox(State())
    /// Told of every notification and reconnection (see ``news``).
    private let newsStream = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Starts listening (in the background) on `channel` (by default `location`'s table's).
    public init(_ location: PostgresLocation, channel: String? = nil) throws(PostgresStoreError) {
        self.location = location
        let configuration = try PostgresSession.configuration(location)
        let logger = Logger(label: "drilldown.postgres.listen", factory: { _ in SwiftLogNoOpLogHandler() })
        let channel = channel ?? location.channel
        let box = box
        let news = newsStream.continuation
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        task.withLockedValue {
            $0 = Task.detached {
                while !Task.isCancelled {
                    do {
                        let connection = try await PostgresConnection.connect(on: eventLoop, configuration: configuration, id: 2, logger: logger).get()
                        connection.addListener(channel: channel) { _, note in
                            let revision = Int64(note.payload) ?? 0
                            box.withLockedValue {
                                $0.announced = max($0.announced, revision)
                                $0.heard += 1
                            }
                            news.yield()
                        }
                        // A query after LISTEN (which addListener sends first) proves it is in place.
                        _ = try await connection.query("SELECT 1", logger: logger).get()
                        box.withLockedValue {
                            $0.connected = true
                            $0.generation += 1
                        }
                        news.yield()
                        await withTaskCancellationHandler {
                            try? await connection.closeFuture.get()
                        } onCancel: {
                            let _: EventLoopFuture<Void> = connection.close()
                        }
                    } catch {}
                    box.withLockedValue { $0.connected = false }
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
        }
    }

    /// What has been heard so far.
    public var state: State { box.withLockedValue { $0 } }

    /// An element for each notification or reconnection (coalesced while nobody reads), so a
    /// model can refresh at once instead of at its next poll. One reader.
    public var news: AsyncStream<Void> { newsStream.stream }

    /// Stops listening.
    public func stop() {
        task.withLockedValue { $0?.cancel() }
        newsStream.continuation.finish()
    }

    deinit { stop() }
}
