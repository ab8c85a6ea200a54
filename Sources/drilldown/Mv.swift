import ArgumentParser
import DrillDown

/// `drilldown mv FILE PATH NEW_PARENT [--at N]` or `drilldown mv FILE PATH --up|--down`.
struct Mv: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv",
        abstract: "Move a node to another parent, or one place up or down among its siblings, printing its new TreePath.",
        discussion: """
            --at counts positions after the node has left its old place (default: last). The file is \
            rewritten atomically in its own format.
            """)

    @OptionGroup var data: DataOptions
    @OptionGroup var author: AuthorOptions
    @Argument(help: "The node to move: a TreePath (3.0) or titles (\"Item 4/Screen G\").")
    var path: String
    @Argument(help: "The new parent (a path as the document is before the move); \"\" for the root.")
    var newParent: String?
    @Option(name: .long, help: "The position among the new parent's children.")
    var at: Int?
    @Flag(name: .long, help: "Swap with the previous sibling.")
    var up = false
    @Flag(name: .long, help: "Swap with the next sibling.")
    var down = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if up && down { throw ValidationError("give --up or --down, not both") }
        if (up || down) && (newParent != nil || at != nil) {
            throw ValidationError("--up/--down reorder among siblings; they take no NEW_PARENT or --at")
        }
        if !up && !down && newParent == nil { throw ValidationError("give NEW_PARENT, or --up/--down") }
    }

    func run() async throws {
        let file = try await EditedFile(data, author: author.author)
        let target = try file.path(path)
        let change: Change
        if up || down {
            guard let last = target.indices.last else { throw BadInput("\(file.data.file): the root cannot be moved") }
            let count = file.source.numberOfChildren(of: target.parent)
            if up && last == 0 { throw BadInput("\(file.data.file): \(target): already the first of its level") }
            if down && last == count - 1 { throw BadInput("\(file.data.file): \(target): already the last of its level") }
            change = .move(target, parent: target.parent, index: last + (up ? -1 : 1))
        } else {
            change = .move(target, parent: try file.path(newParent ?? ""), index: at)
        }
        let moved = try await file.apply([change])[0]
        try file.report(moved, json: output.json)
    }
}
