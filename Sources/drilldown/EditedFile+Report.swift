import DrillDown

extension EditedFile {
    /// Prints the resulting TreePath (empty for the root), or a JSON object with its title path too.
    func report(_ path: TreePath, json: Bool, title: String? = nil) throws {
        let shownTitle = title ?? source.node(at: path).map { source.levelTitle(of: $0) } ?? ""
        guard json else {
            var out = Out()
            out.line(path.description)
            return out.flush()
        }
        struct Result: Encodable { var path: String, titlePath: String?, title: String, file: String, format: String }
        let titlePath = title == nil ? source.node(at: path).map { source.titlePath(of: $0) } : nil
        try Out.json(Result(path: path.description, titlePath: titlePath, title: shownTitle, file: data.file, format: data.formatName))
    }
}
