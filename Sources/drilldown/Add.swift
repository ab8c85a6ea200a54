import ArgumentParser
import DrillDown

/// `drilldown add FILE PARENT TITLE [--attr key=value …]`: add a node with its fields and print its TreePath.
struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a node under PARENT and print its TreePath; the file keeps its form: only the changed bytes are rewritten, atomically, under its lock.",
        discussion: """
            In the outline convention the new row is {Title: TITLE, attributes…}, added to the parent's children \
            (a children list is created when the parent has none). In generic mode TITLE is the new member's key \
            in an object (ignored in an array); the node is an object of the attributes, or the --value scalar.
            """)

    @OptionGroup var data: DataOptions
    @OptionGroup var author: AuthorOptions
    @Argument(help: "The parent: a TreePath (3.0) or titles (\"Item 4/Screen G\"); \"\" for the root.")
    var parent: String
    @Argument(help: "The new node's title.")
    var title: String
    @Option(name: .long, help: "Insert at this position among the parent's children (default: last).")
    var at: Int?
    @Option(name: .long, parsing: .singleValue, help: "A field key=value (repeatable), typed by the field (a duration as m:ss); a new key as written: 42, 2.5, true/false keep their kinds.")
    var attr: [String] = []
    @Option(name: .long, help: "Generic mode: add this scalar instead of an object.")
    var value: String?
    @Flag(name: .long, help: "Keep every value a string (no number or boolean typing).")
    var string = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        for a in attr { _ = try Assignment.split(a) }
        if value != nil, !attr.isEmpty { throw ValidationError("a new node is either a --value or has --attr fields, not both") }
    }

    func run() async throws {
        let file = try await EditedFile(data, author: author.author)
        let parentPath = try file.path(parent)
        var node = NewNode(title: title, value: value.map { string ? Scalar(.string, $0) : Scalar(inferring: $0) })
        if value == nil {
            let form = try file.newChildForm(of: parentPath)
            var inputs: [String: FieldForm.Input] = [(form.titleField?.key ?? "title"): .text(title)]
            for a in attr {
                let (key, text) = try Assignment.split(a)
                inputs[key] = string ? .typed(Scalar(.string, text)) : .text(text)
            }
            node = try file.check { () throws(EditError) in try form.newNode(inputs) }
        }
        let path = try await file.apply([.insert(node, parent: parentPath, index: at)])[0]
        try file.report(path, json: output.json)
    }
}
