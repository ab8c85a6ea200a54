import ArgumentParser
import DrillDown

/// `drilldown rm FILE PATH`: delete a node and everything below it.
struct Rm: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm",
        abstract: "Delete a node and its subtree, printing the TreePath it had; the file keeps its form: only the changed bytes are rewritten, atomically, under its lock.")

    @OptionGroup var data: DataOptions
    @OptionGroup var author: AuthorOptions
    @Argument(help: "The node: a TreePath (3.0) or titles (\"Item 4/Screen G\").")
    var path: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let file = try await EditedFile(data, author: author.author)
        let target = try file.path(path)
        let title = file.source.node(at: target).map { file.source.title(of: $0) } ?? ""
        let removed = try await file.apply([.delete(target)])[0]
        try file.report(removed, json: output.json, title: title)
    }
}
