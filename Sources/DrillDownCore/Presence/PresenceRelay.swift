/// Carries ``PresenceBeat``s between the instances that serve one data set (for a PostgreSQL
/// table: `NOTIFY` on a channel of its own), so each instance's ``Presence`` also knows the
/// pages the others serve. Data served by one process needs none.
public protocol PresenceRelay: Sendable {
    /// Sends `beat` to the other instances (best effort: a beat lost is sent again a few seconds later).
    func publish(_ beat: PresenceBeat) async
    /// The beats the other instances send (and this one's own, which a reader ignores by their
    /// page). One reader; it ends when the relay stops.
    var beats: AsyncStream<PresenceBeat> { get }
}
