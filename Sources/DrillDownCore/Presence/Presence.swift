/// Who is on which levels right now, and which rows they are editing: the rule behind the
/// initials a page (a level, the outline, the columns) shows in its navigation bar and the
/// marker on a row another user is editing.
///
/// Each open page is announced by ``PresenceBeat``s. A page counts from its first beat until a
/// beat says it is ``PresenceBeat/gone`` or until ``expiry`` passes without one (its instance
/// stopped, or its connection died unnoticed). A reader is shown the *other* users whose pages
/// show rows of a level the reader's page shows (one entry per user however many pages they have
/// open there), and only where they may read: nothing on a level they may not read, no marker on
/// a row hidden from them. ``follow(_:moving:)`` keeps every page's paths on the same rows as
/// rows above them come and go.
///
/// ```swift
/// var presence = Presence()
/// presence.record(PresenceBeat(page: "a1", user: "ana", level: [0], editing: [0, 2]), at: .now)
/// presence.visitors(of: [0], for: "bo") { _ in true }
/// // [PresenceVisitor(user: "ana", editing: [[0, 2]])]
/// ```
public struct Presence: Sendable {
    /// How long a page counts without a beat: 30 s by default.
    public let expiry: Duration
    private var entries: [String: Entry] = [:]

    private struct Entry: Sendable {
        var beat: PresenceBeat
        var seen: ContinuousClock.Instant
    }

    /// An empty board whose pages count for `expiry` after their last beat.
    public init(expiry: Duration = .seconds(30)) {
        self.expiry = expiry
    }

    /// Whether no page is present.
    public var isEmpty: Bool { entries.isEmpty }

    /// The beats of the pages present, in no particular order.
    public var beats: [PresenceBeat] { entries.values.map(\.beat) }

    /// Takes in `beat`, heard at `now`. Returns whether who is where changed: a new page, another
    /// level or row being edited, or a page gone (a beat that only says "still here" returns `false`).
    @discardableResult
    public mutating func record(_ beat: PresenceBeat, at now: ContinuousClock.Instant) -> Bool {
        if beat.gone { return entries.removeValue(forKey: beat.page) != nil }
        let before = entries.updateValue(Entry(beat: beat, seen: now), forKey: beat.page)
        return before?.beat != beat
    }

    /// Forgets the pages not heard of for ``expiry`` at `now`. Returns whether any was forgotten.
    @discardableResult
    public mutating func expire(at now: ContinuousClock.Instant) -> Bool {
        let stale = entries.filter { now - $0.value.seen > expiry }.map(\.key)
        for page in stale { entries.removeValue(forKey: page) }
        return !stale.isEmpty
    }

    /// The users other than `viewer` with a page on `level`, by name, each with the rows they
    /// edit there; empty when `mayRead` refuses the level. Rows `mayRead` refuses carry no marker.
    /// - Complexity: O(pages present).
    public func visitors(of level: TreePath, for viewer: String, mayRead: (TreePath) -> Bool) -> [PresenceVisitor] {
        visitors(showing: [level], for: viewer, mayRead: mayRead)
    }

    /// The users other than `viewer` with a page showing rows of any of `levels` (whatever the
    /// view: a level, an outline, columns), by name, each with the rows they edit among those
    /// levels' rows. Levels `mayRead` refuses are left out, and rows it refuses carry no marker.
    /// - Complexity: O(pages present × their levels).
    public func visitors(showing levels: [TreePath], for viewer: String, mayRead: (TreePath) -> Bool) -> [PresenceVisitor] {
        let readable = Set(levels.filter(mayRead))
        guard !readable.isEmpty else { return [] }
        var byUser: [String: Set<TreePath>] = [:]
        for entry in entries.values where entry.beat.user != viewer && entry.beat.levels.contains(where: readable.contains) {
            var rows = byUser[entry.beat.user] ?? []
            if let row = entry.beat.editing, readable.contains(row.parent), mayRead(row) { rows.insert(row) }
            byUser[entry.beat.user] = rows
        }
        return byUser.map { PresenceVisitor(user: $0.key, editing: $0.value.sorted()) }.sorted { $0.user < $1.user }
    }

    /// Moves the levels and edited row of every page `moves` accepts (all by default) through
    /// `event` (see ``PresenceBeat/following(_:)``), so a marker stays on the row a user edits
    /// when rows above it come and go, whoever moved them. Returns whether any page's paths changed.
    @discardableResult
    public mutating func follow(_ event: ChangeEvent, moving moves: (PresenceBeat) -> Bool = { _ in true }) -> Bool {
        var changed = false
        for (page, entry) in entries where moves(entry.beat) {
            let moved = entry.beat.following(event)
            if moved != entry.beat {
                entries[page]?.beat = moved
                changed = true
            }
        }
        return changed
    }
}
