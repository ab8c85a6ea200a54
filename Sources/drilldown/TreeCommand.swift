import ArgumentParser
import DrillDown

/// `drilldown tree FILE [PATH] [--depth N]`: the outline of a subtree, sorted levels in their
/// display order (each row's TreePath still names its place in the data).
struct TreeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tree", abstract: "Print the outline of a subtree, one row per node, indented by depth.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The subtree's root: a TreePath or titles; the whole tree when omitted.")
    var path: String?
    @Option(name: .long, help: "Show at most this many levels below PATH.") var depth: Int?
    @Flag(name: .long, help: "Prefix each row with its TreePath.") var paths = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let depth, depth < 0 { throw ValidationError("--depth must be 0 or more") }
    }

    func run() throws {
        let loaded = try data.load()
        let id = try loaded.resolve(path)
        let presenter = loaded.presenter
        let maxDepth = depth ?? Int.max
        let basePath = loaded.source.path(of: id)
        if output.json {
            try Out.json(subtree(presenter, id, basePath, maxDepth))
            return
        }
        var out = Out()
        out.line(presenter.screenTitle(of: id))
        // Depth-first with an explicit stack: deep documents cannot overflow the call stack.
        var stack: [(id: NodeID, path: TreePath, prefix: String, level: Int, last: Bool)] = []
        func pushChildren(of node: NodeID, path: TreePath, prefix: String, level: Int) {
            guard level < maxDepth else { return }
            let count = loaded.source.childCount(of: node)
            let order = presenter.order(of: node)
            for k in stride(from: count - 1, through: 0, by: -1) {
                let i = order?.dataIndex(at: k) ?? k
                stack.append((loaded.source.children(of: node)[i], path.appending(i), prefix, level + 1, k == count - 1))
            }
        }
        pushChildren(of: id, path: basePath, prefix: "", level: 0)
        while let (node, path, prefix, level, last) = stack.popLast() {
            let row = presenter.row(for: node, path: path)
            var line = prefix + (last ? "└─ " : "├─ ")
            if paths { line += path.description + "  " }
            line += row.title
            if !row.subtitle.isEmpty { line += "  (\(row.subtitle))" }
            if row.childCount > 0, level >= maxDepth { line += "  › \(row.childCount)" }
            out.line(line)
            pushChildren(of: node, path: path, prefix: prefix + (last ? "   " : "│  "), level: level)
        }
        out.flush()
    }

    final class NodeJSON: Encodable {
        var title: String, path: String, subtitle: String?, children: [NodeJSON]?, childCount: Int
        init(title: String, path: String, subtitle: String?, children: [NodeJSON]?, childCount: Int) {
            self.title = title
            self.path = path
            self.subtitle = subtitle
            self.children = children
            self.childCount = childCount
        }
    }

    func subtree(_ presenter: Presenter, _ id: NodeID, _ path: TreePath, _ remaining: Int) -> NodeJSON {
        let source = presenter.source
        let count = source.childCount(of: id)
        let order = remaining > 0 && count > 0 ? presenter.order(of: id) : nil
        let kids: [NodeJSON]? =
            remaining > 0 && count > 0
            ? (0 ..< count).map { k in
                let i = order?.dataIndex(at: k) ?? k
                return subtree(presenter, source.children(of: id)[i], path.appending(i), remaining - 1)
            } : nil
        let row = id == source.root ? nil : presenter.row(for: id, path: path)
        return NodeJSON(
            title: presenter.screenTitle(of: id), path: path.description,
            subtitle: row.flatMap { $0.subtitle.isEmpty ? nil : $0.subtitle }, children: kids, childCount: count)
    }
}
