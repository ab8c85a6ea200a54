import DrillDownCore
import Foundation

/// The presence of a live server with accounts: the ``Presence`` board of every page open on
/// this instance (one per `/events` stream that asked for it) and, through a ``PresenceRelay``,
/// on the other instances serving the same data. A server without accounts has none, so it
/// does no presence work and sends nothing.
///
/// A page joins when its stream opens, beats with the stream's keep-alive (every 5 s), and is
/// gone when the stream ends (the page closed or navigated away); a page of another instance
/// whose beats stop expires after ``Presence/expiry``. Streams ``subscribe()`` to hear of each
/// change and compute what their reader may see (``visitors(on:mayRead:)``).
final class PresenceHub: @unchecked Sendable {
    /// This instance's id: the prefix of its pages' ids, so its own beats echoed back by the relay are ignored.
    let instance: String
    private let relay: (any PresenceRelay)?
    private let lock = NSLock()
    private var board = Presence()
    /// The beats of this instance's pages (by page), sent again with each keep-alive.
    private var local: [String: PresenceBeat] = [:]
    private var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
    private var counter = 0
    private var listening: Task<Void, Never>?
    private var following: Task<Void, Never>?
    /// The data the pages show (`follow(_:)` of the model).
    private var model: DocumentModel?
    /// The beats waiting to be sent, in order, by one task: a request never waits for the relay
    /// (a database that is away would hold it for its connect timeout).
    private let outbox: AsyncStream<PresenceBeat>.Continuation?
    private let sending: Task<Void, Never>?

    init(relay: (any PresenceRelay)?) {
        instance = SessionCookie.hex(UsersFile.randomBytes(6))
        self.relay = relay
        guard let relay else {
            outbox = nil
            sending = nil
            return
        }
        let (beats, outbox) = AsyncStream.makeStream(of: PresenceBeat.self, bufferingPolicy: .bufferingNewest(1024))
        self.outbox = outbox
        sending = Task {
            for await beat in beats { await relay.publish(beat) }
        }
        listening = Task { [weak self] in
            for await beat in relay.beats {
                guard let self else { return }
                if beat.page.hasPrefix(self.instance + ".") { continue }
                self.record(beat)
            }
        }
    }

    deinit {
        listening?.cancel()
        following?.cancel()
        outbox?.finish()
    }

    /// Hands `beat` to the relay, after the beats before it.
    private func publish(_ beat: PresenceBeat) { outbox?.yield(beat) }

    /// A new page id: this instance's id and a counter.
    func newPage() -> String {
        lock.withLock {
            counter += 1
            return "\(instance).\(counter)"
        }
    }

    /// A page of this instance opened, or changed the row it edits.
    func join(_ beat: PresenceBeat) {
        let beat = remembered(beat)
        lock.withLock { local[beat.page] = beat }
        record(beat)
        publish(beat)
    }

    /// Sets the row `user`'s page `page` edits (`.some(nil)`: none) and the levels it shows,
    /// leaving what is `nil` as it was. `false` when the page is not theirs or not open on this instance.
    func update(page: String, user: String, editing: TreePath??, levels: [TreePath]?) -> Bool {
        let source = editing == nil ? nil : currentSource
        let beat: PresenceBeat? = lock.withLock {
            guard var beat = local[page], beat.user == user else { return nil }
            if let editing {
                beat.editing = editing
                if let source { beat = beat.remembering(in: source) }
            }
            if let levels { beat.levels = levels }
            local[page] = beat
            return beat
        }
        guard let beat else { return false }
        record(beat)
        publish(beat)
        return true
    }

    /// The data changed: the pages' levels and edited rows move with the rows (see
    /// ``Presence/follow(_:moving:)``), through an edit, an Undo or Redo, or another writer's
    /// change. This instance's own steps move every page it knows of; another writer's change
    /// only this instance's pages: the other instances move theirs (as the change reaches them)
    /// and announce them. This instance's pages that moved are announced again.
    func follow(_ event: ChangeEvent) {
        let own = event.origin != .external
        let prefix = instance + "."
        let (changed, moved): (Bool, [PresenceBeat]) = lock.withLock {
            let changed = board.follow(event) { own || $0.page.hasPrefix(prefix) }
            var moved: [PresenceBeat] = []
            for (page, beat) in local {
                let after = beat.following(event)
                if after != beat {
                    local[page] = after
                    moved.append(after)
                }
            }
            return (changed, moved)
        }
        if changed { notify() }
        moved.forEach(publish)
    }

    /// Follows the changes of `model` (see ``follow(_:)``) until it ends; the rows pages start
    /// editing are remembered as `model`'s data shows them.
    func follow(_ model: DocumentModel) {
        lock.withLock { self.model = model }
        following = Task { [weak self] in
            for await event in await model.changes() {
                guard let self else { return }
                self.follow(event)
            }
        }
    }

    /// `beat` with the title of the row it edits, as the data is now (see ``PresenceBeat/remembering(in:)``).
    private func remembered(_ beat: PresenceBeat) -> PresenceBeat {
        guard beat.editing != nil, let source = currentSource else { return beat }
        return beat.remembering(in: source)
    }

    /// The followed model's data as it is now; `nil` before a model is followed.
    private var currentSource: (any Source)? { lock.withLock { model }?.versionedSource.source }

    /// The keep-alive of a page of this instance: it is still open. Also forgets the pages whose
    /// beats stopped.
    func keepAlive(_ page: String) {
        guard let beat = lock.withLock({ local[page] }) else { return }
        let now = ContinuousClock.now
        let expired = lock.withLock {
            board.record(beat, at: now)
            return board.expire(at: now)
        }
        if expired { notify() }
        publish(beat)
    }

    /// A page of this instance closed.
    func leave(_ page: String) {
        guard var beat = lock.withLock({ local.removeValue(forKey: page) }) else { return }
        beat.gone = true
        record(beat)
        publish(beat)
    }

    /// The levels page `page` of this instance shows now, and the users other than its user
    /// showing rows of them, with the rows they edit there, as `mayRead` lets the reader see them;
    /// `nil` when the page is not open here.
    func visitors(on page: String, mayRead: (TreePath) -> Bool) -> (levels: [TreePath], here: [PresenceVisitor])? {
        lock.withLock {
            guard let beat = local[page] else { return nil }
            return (beat.levels, board.visitors(showing: beat.levels, for: beat.user, mayRead: mayRead))
        }
    }

    /// An element at each change of who is where (coalesced while unread), and the id to ``unsubscribe(_:)`` with.
    func subscribe() -> (id: Int, changes: AsyncStream<Void>) {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = lock.withLock {
            counter += 1
            subscribers[counter] = continuation
            return counter
        }
        return (id, stream)
    }

    /// Stops telling subscriber `id` of changes.
    func unsubscribe(_ id: Int) {
        lock.withLock { subscribers.removeValue(forKey: id) }?.finish()
    }

    /// Takes in `beat` (of this instance or another) now, telling the subscribers when it changed who is where.
    private func record(_ beat: PresenceBeat) {
        let now = ContinuousClock.now
        let changed = lock.withLock {
            let moved = board.record(beat, at: now)
            return board.expire(at: now) || moved
        }
        if changed { notify() }
    }

    private func notify() {
        for subscriber in lock.withLock({ Array(subscribers.values) }) { subscriber.yield() }
    }
}
