/// One open page's presence, as the instance serving it announces it: who, on which levels,
/// editing which row. An instance sends one for each of its pages every few seconds (a
/// heartbeat), at once when the page starts or stops editing a row or shows other levels, and
/// one that is ``gone`` when the page closes.
///
/// A level's page is on one level; an outline or columns page is on every level whose rows it
/// shows (an outline: the levels of the rows in view; columns: one level per column).
///
/// Its JSON (the form other instances receive) names paths as text, `levels` only when there
/// are several: `{"page": "i1.7", "user": "ana", "level": "0.1", "levels": ["0.1", "0.2"], "editing": "0.1.2"}`.
public struct PresenceBeat: Sendable, Equatable, Codable {
    /// The page view, unique across instances (for example the instance's id and a counter).
    public var page: String
    /// The signed-in user viewing it.
    public var user: String
    /// The levels whose rows the page shows, in the page's order (a level page or a row's
    /// detail: the one level the rows are listed in).
    public var levels: [TreePath]
    /// The row the user is editing there (its title in place, or its detail in Edit mode), if any.
    public var editing: TreePath?
    /// Whether the page was closed: its entry is removed instead of refreshed.
    public var gone: Bool
    /// The title of the row being edited when its instance last saw it (``remembering(in:)``),
    /// so that after the data was read again the row is looked for by it (see
    /// ``following(_:)``). Kept by the page's own instance: not part of the JSON.
    public var editedTitle: String?

    /// A page on the one level `level` (a level page, a row's detail).
    public init(page: String, user: String, level: TreePath, editing: TreePath? = nil, gone: Bool = false) {
        self.init(page: page, user: user, levels: [level], editing: editing, gone: gone)
    }

    /// A page showing the rows of `levels` (an outline, columns).
    public init(page: String, user: String, levels: [TreePath], editing: TreePath? = nil, gone: Bool = false) {
        self.page = page
        self.user = user
        self.levels = levels
        self.editing = editing
        self.gone = gone
    }

    /// The page's first level (a level page's only one; the root when it shows none).
    public var level: TreePath { levels.first ?? .root }

    /// This beat with its paths as they are after `event` (see ``ChangeEvent/following(_:)``),
    /// so it stays with the same rows when rows above them are added, removed or moved, by an
    /// edit, an Undo or Redo, or another writer's recorded step: a level that was removed is
    /// left out, and a row being edited that was removed is edited no more.
    ///
    /// After an external change (the data was read again, and a writer without a history may
    /// have moved rows unrecorded) the edited row must still carry its ``editedTitle``: if it
    /// does not, the nearest row of its level within ``searchDistance`` that does is taken,
    /// and without one the row is edited no more — a marker dropped rather than shown on
    /// another row. Otherwise ``editedTitle`` becomes the row's title in `event`'s data (another
    /// user may have renamed it).
    public func following(_ event: ChangeEvent) -> PresenceBeat {
        var beat = self
        beat.levels = levels.compactMap(event.following)
        beat.editing = editing.flatMap(event.following)
        guard let row = beat.editing else {
            beat.editedTitle = nil
            return beat
        }
        if event.origin == .external, let title = editedTitle {
            beat.editing = Self.find(title, near: row, in: event.source)
        } else {
            beat.editedTitle = Self.title(at: row, in: event.source)
        }
        return beat
    }

    /// This beat with ``editedTitle`` read from `source` (the data the page's user sees).
    public func remembering(in source: any Source) -> PresenceBeat {
        var beat = self
        beat.editedTitle = editing.flatMap { Self.title(at: $0, in: source) }
        return beat
    }

    /// How far from where its path leads an edited row is looked for after the data was read again.
    public static let searchDistance = 32

    /// The row titled `title` nearest to `row` among its siblings in `source`, at most
    /// ``searchDistance`` away; `nil` when there is none, or two as near.
    static func find(_ title: String, near row: TreePath, in source: any Source) -> TreePath? {
        if Self.title(at: row, in: source) == title { return row }
        guard let index = row.indices.last, let parent = source.node(at: row.parent) else { return nil }
        let count = source.childCount(of: parent)
        for distance in 1 ... searchDistance {
            let near = [index - distance, index + distance].filter { $0 >= 0 && $0 < count }.map { row.parent.appending($0) }
            let found = near.filter { Self.title(at: $0, in: source) == title }
            if found.count == 1 { return found[0] }
            if found.count > 1 { return nil }
        }
        return nil
    }

    static func title(at path: TreePath, in source: any Source) -> String? {
        source.node(at: path).map(source.title(of:))
    }

    private enum CodingKeys: String, CodingKey { case page, user, level, levels, editing, gone }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        page = try c.decode(String.self, forKey: .page)
        user = try c.decode(String.self, forKey: .user)
        func path(_ text: String, _ key: CodingKeys) throws -> TreePath {
            guard let path = TreePath(text) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "'\(text)' is not a TreePath")
            }
            return path
        }
        if let texts = try c.decodeIfPresent([String].self, forKey: .levels) {
            levels = try texts.map { try path($0, .levels) }
        } else {
            levels = [try path(try c.decode(String.self, forKey: .level), .level)]
        }
        editing = try c.decodeIfPresent(String.self, forKey: .editing).map { try path($0, .editing) }
        gone = try c.decodeIfPresent(Bool.self, forKey: .gone) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(page, forKey: .page)
        try c.encode(user, forKey: .user)
        try c.encode(level.description, forKey: .level)
        if levels.count != 1 { try c.encode(levels.map(\.description), forKey: .levels) }
        try c.encodeIfPresent(editing?.description, forKey: .editing)
        if gone { try c.encode(true, forKey: .gone) }
    }
}
