import ArgumentParser
import DrillDown

/// `drilldown set FILE PATH [--title T] [key=value …] [--unset key …]`: change a node's title and attributes.
struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a node's title or attributes and print its TreePath; the file keeps its form: only the changed bytes are rewritten, atomically, under its lock.",
        discussion: """
            Values are typed: 42 stays an integer, 2.5 a real, true/false a boolean; --string keeps them text. \
            All the changes are applied together or not at all.
            """)

    @OptionGroup var data: DataOptions
    @Argument(help: "The node: a TreePath (3.0) or titles (\"Item 4/Screen G\").")
    var path: String
    @Argument(help: "Attributes to set, as key=value.")
    var assignments: [String] = []
    @Option(name: .long, help: "The new title (the row's title key; a generic member's key).")
    var title: String?
    @Option(name: .long, parsing: .singleValue, help: "Remove this attribute (repeatable).")
    var unset: [String] = []
    @Flag(name: .long, help: "Keep every value a string (no number or boolean typing).")
    var string = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard title != nil || !assignments.isEmpty || !unset.isEmpty else {
            throw ValidationError("nothing to change: give --title, key=value or --unset key")
        }
        for a in assignments { _ = try Assignment.parse(a, asString: string) }
    }

    func run() async throws {
        let file = try EditedFile(data)
        let target = try file.path(path)
        var changes: [Change] = []
        if let title { changes.append(.updateTitle(target, title: title)) }
        for a in assignments {
            let attribute = try Assignment.parse(a, asString: string)
            changes.append(.setAttribute(target, key: attribute.key, value: attribute.value))
        }
        for key in unset { changes.append(.setAttribute(target, key: key, value: nil)) }
        let paths = try await file.apply(changes)
        try file.report(paths.last ?? target, json: output.json)
    }
}
