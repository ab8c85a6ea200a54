import DrillDownCore

/// What `--editable` adds to a ``Browser``: its edits go out as ``EditRequest``s to the
/// ``DocumentModel`` the event loop holds, one at a time.
public struct Editor: Sendable {
    /// The serial of the request under way, if one is: keys wait in ``held`` until it is done.
    public internal(set) var pending: Int?
    /// The keys pressed while a request was under way, in order.
    var held: [Key] = []
    /// The serial of the latest request.
    var serial = 0

    /// An editor with nothing under way.
    public init() {}
}
