import NIOConcurrencyHelpers

/// When a store last asked PostgreSQL for other instances' commits, and what its
/// ``PostgresListener`` had heard then: a refresh is due when the listener brings news (what
/// counts as news is the store's to say) or, without any, once every interval.
///
/// A reference, because a model refreshes a copy of its store and keeps it only when the data
/// changed: the copies share one schedule.
final class RefreshSchedule: Sendable {
    private let seen: NIOLockedValueBox<(time: ContinuousClock.Instant, state: PostgresListener.State)>

    /// Starts at `now`, having heard `state` (by default nothing yet).
    init(heard state: PostgresListener.State = .init()) {
        seen = NIOLockedValueBox((ContinuousClock.now, state))
    }

    /// Whether asking is due now: `news` says so of what `listener` heard (compared with what it
    /// had heard at the last yes), or `interval` has passed since. A yes starts the next interval.
    func due(
        _ listener: PostgresListener?, every interval: Duration, news: (_ now: PostgresListener.State, _ then: PostgresListener.State) -> Bool
    ) -> Bool {
        let now = ContinuousClock.now
        let state = listener?.state
        return seen.withLockedValue { seen in
            let heard = state.map { news($0, seen.state) } ?? false
            guard heard || now - seen.time >= interval else { return false }
            seen = (now, state ?? .init())
            return true
        }
    }
}
