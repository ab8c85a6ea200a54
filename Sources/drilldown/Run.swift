import ArgumentParser
import DrillDown

/// `drilldown run FILE PATH ACTION --schema S`: run a schema action (the Sounds example's play, ping) on a node.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a named action from the schema's 'actions:' on a node and print its TreePath.",
        discussion: """
            Actions are declared in the schema, e.g. `play: { increment: plays }`, `ping: { setNow: lastPinged }`, \
            `like: { toggle: favorite }`, `archive: { set: "state=archived" }`. The file is rewritten atomically \
            in its own format.
            """)

    @OptionGroup var data: DataOptions
    @OptionGroup var author: AuthorOptions
    @Argument(help: "The node: a TreePath (0.3) or titles (\"Sounds/Ringtone\").")
    var path: String
    @Argument(help: "The action's name, e.g. play.")
    var action: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let file = try await EditedFile(data, author: author.author)
        let target = try file.path(path)
        // Derived from the data as the step writes it: a database shared with other writers counts theirs.
        try await file.run(action, at: target)
        try file.report(target, json: output.json)
    }
}
