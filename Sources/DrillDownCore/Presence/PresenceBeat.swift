/// One open page's presence, as the instance serving it announces it: who, on which level,
/// editing which row. An instance sends one for each of its pages every few seconds (a
/// heartbeat), at once when the page starts or stops editing a row, and one that is ``gone``
/// when the page closes.
///
/// Its JSON (the form other instances receive) names paths as text:
/// `{"page": "i1.7", "user": "ana", "level": "0.1", "editing": "0.1.2"}`.
public struct PresenceBeat: Sendable, Equatable, Codable {
    /// The page view, unique across instances (for example the instance's id and a counter).
    public var page: String
    /// The signed-in user viewing it.
    public var user: String
    /// The level the page shows (for a row's detail: the level the row is listed in).
    public var level: TreePath
    /// The row the user is editing there (its title in place, or its detail in Edit mode), if any.
    public var editing: TreePath?
    /// Whether the page was closed: its entry is removed instead of refreshed.
    public var gone: Bool

    public init(page: String, user: String, level: TreePath, editing: TreePath? = nil, gone: Bool = false) {
        self.page = page
        self.user = user
        self.level = level
        self.editing = editing
        self.gone = gone
    }

    private enum CodingKeys: String, CodingKey { case page, user, level, editing, gone }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        page = try c.decode(String.self, forKey: .page)
        user = try c.decode(String.self, forKey: .user)
        let levelText = try c.decode(String.self, forKey: .level)
        guard let level = TreePath(levelText) else {
            throw DecodingError.dataCorruptedError(forKey: .level, in: c, debugDescription: "'\(levelText)' is not a TreePath")
        }
        self.level = level
        if let text = try c.decodeIfPresent(String.self, forKey: .editing) {
            guard let editing = TreePath(text) else {
                throw DecodingError.dataCorruptedError(forKey: .editing, in: c, debugDescription: "'\(text)' is not a TreePath")
            }
            self.editing = editing
        }
        gone = try c.decodeIfPresent(Bool.self, forKey: .gone) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(page, forKey: .page)
        try c.encode(user, forKey: .user)
        try c.encode(level.description, forKey: .level)
        try c.encodeIfPresent(editing?.description, forKey: .editing)
        if gone { try c.encode(true, forKey: .gone) }
    }
}
