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
///
/// ``listening()`` (or ``waitUntilListening(timeout:)``) returns once the LISTEN is in place: a
/// change made elsewhere after it returns is announced to this listener, never missed.
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

    /// The state, and the callers of ``listening()`` waiting for the LISTEN to be in place.
    private struct Inner {
        var state = State()
        var stopped = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        /// Waiters cancelled before they were registered.
        var cancelled: Set<Int> = []

        /// Everyone waiting, now answered.
        mutating func takeWaiters() -> [CheckedContinuation<Bool, Never>] {
            defer { waiters = [:] }
            return Array(waiters.values)
        }
    }

    let location: PostgresLocation
    private let box = NIOLockedValueBox(Inner())
    /// Told of every notification and reconnection (see ``news``).
    private let newsStream = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    private let task = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Starts listening (in the background) on `channel` (by default `location`'s table's).
    /// `payloads`, when given, is also handed each notification's payload as it comes.
    public init(_ location: PostgresLocation, channel: String? = nil, payloads: (@Sendable (String) -> Void)? = nil) throws(PostgresStoreError) {
        self.location = location
        let configuration = try PostgresSession.configuration(location)
        let logger = Logger(label: "drilldown.postgres.listen", factory: { _ in SwiftLogNoOpLogHandler() })
        let channel = channel ?? location.channel
        let confirmation = PostgresQuery(unsafeSQL: Self.confirmation(channel))
        let box = box
        let news = newsStream.continuation
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        task.withLockedValue {
            $0 = Task.detached {
                while !Task.isCancelled {
                    do {
                        let connection = try await PostgresConnection.connect(on: eventLoop, configuration: configuration, id: 2, logger: logger).get()
                        connection.addListener(channel: channel) { _, note in
                            payloads?(note.payload)
                            let revision = Int64(note.payload) ?? 0
                            box.withLockedValue {
                                $0.state.announced = max($0.state.announced, revision)
                                $0.state.heard += 1
                            }
                            news.yield()
                        }
                        // A query after LISTEN (which addListener sends first) proves it is in place.
                        // Its text names the channel, so pg_stat_activity shows who listens where
                        // (the end-to-end tests wait for it there before they write).
                        _ = try await connection.query(confirmation, logger: logger).get()
                        let ready = box.withLockedValue {
                            $0.state.connected = true
                            $0.state.generation += 1
                            return $0.takeWaiters()
                        }
                        for waiter in ready { waiter.resume(returning: true) }
                        news.yield()
                        await withTaskCancellationHandler {
                            try? await connection.closeFuture.get()
                        } onCancel: {
                            let _: EventLoopFuture<Void> = connection.close()
                        }
                    } catch {}
                    box.withLockedValue { $0.state.connected = false }
                    try? await Task.sleep(for: .milliseconds(500))
                }
            }
        }
    }

    /// What has been heard so far.
    public var state: State { box.withLockedValue { $0.state } }

    /// The query run after LISTEN to confirm it, as `pg_stat_activity.query` shows it for the
    /// listening connection: `SELECT 'drilldown_music' AS listening`.
    public static func confirmation(_ channel: String) -> String {
        "SELECT '\(channel.replacingOccurrences(of: "'", with: "''"))' AS listening"
    }

    /// Returns `true` once the LISTEN is in place (at once when it is): a notification sent after
    /// that reaches this listener. After an outage it waits for the connection to be made again.
    /// `false` when the listener stops or the calling task is cancelled first.
    public func listening() async -> Bool {
        let id = box.withLockedValue {
            $0.nextWaiter += 1
            return $0.nextWaiter
        }
        let box = box
        let answer = await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
                let now: Bool? = box.withLockedValue {
                    if $0.stopped || $0.cancelled.contains(id) { return false }
                    if $0.state.connected { return true }
                    $0.waiters[id] = waiter
                    return nil
                }
                if let now { waiter.resume(returning: now) }
            }
        } onCancel: {
            let waiter = box.withLockedValue {
                let waiter = $0.waiters.removeValue(forKey: id)
                if waiter == nil { $0.cancelled.insert(id) }
                return waiter
            }
            waiter?.resume(returning: false)
        }
        box.withLockedValue { _ = $0.cancelled.remove(id) }
        return answer
    }

    /// ``listening()`` for at most `timeout`: `false` when the LISTEN is not in place by then.
    public func waitUntilListening(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.listening() }
            group.addTask {
                try? await Task.sleep(for: timeout)   // the deadline, not the wait: listening() ends it early
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// An element for each notification or reconnection (coalesced while nobody reads), so a
    /// model can refresh at once instead of at its next poll. One reader.
    public var news: AsyncStream<Void> { newsStream.stream }

    /// Stops listening.
    public func stop() {
        task.withLockedValue { $0?.cancel() }
        newsStream.continuation.finish()
        let waiting = box.withLockedValue {
            $0.stopped = true
            return $0.takeWaiters()
        }
        for waiter in waiting { waiter.resume(returning: false) }
    }

    deinit { stop() }
}
