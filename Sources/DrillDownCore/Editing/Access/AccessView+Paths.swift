/// Paths as one reader may follow them: a row hidden from the reader is not reachable by path,
/// and the answer does not tell it apart from a path that names nothing.
extension AccessView {
    /// The node `text` (a TreePath or a title path) names in `source`, when this user may reach it.
    /// - Throws: ``PathError``; for a user from whom rows are hidden, one message for a path that
    ///   names a hidden row and for one that names nothing (the resolver's detail, such as which
    ///   titles a level has, could name hidden rows).
    public func resolve(_ text: String, in source: any Source) throws(PathError) -> NodeID {
        guard hidesRows else { return try source.resolve(text) }
        guard let id = try? source.resolve(text), id == source.root || mayReach(source.path(of: id)) else {
            throw PathError(path: text, message: "nothing at '\(text)' that \(user) may see")
        }
        return id
    }
}
