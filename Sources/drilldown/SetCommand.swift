import ArgumentParser
import DrillDown

/// `drilldown set FILE PATH [--value V [--type T]] [--title T] [key=value …] [--unset key …]`:
/// change a scalar's value, a node's title and its fields.
struct SetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change a scalar's value, or a node's title and fields, and print its TreePath; the file keeps its form: only the changed bytes are rewritten, atomically, under its lock.",
        discussion: """
            Values keep their types: a field that holds an integer takes an integer (9090), a boolean \
            true/false/yes/no, a duration m:ss; the schema's fields: declare types, choices and bounds. A new \
            attribute is typed as written (42 an integer, 2.5 a real, true a boolean). --type forces a type, \
            --string keeps key=value text. All the changes are applied together or not at all.

              drilldown set config.json server/port --value 9090
              drilldown set config.json server/name --value 9090 --type text
              drilldown set library.yaml "Miles Davis/Kind of Blue/So What" length=3:43 --unset composer
            """)

    @OptionGroup var data: DataOptions
    @OptionGroup var author: AuthorOptions
    @Argument(help: "The node: a TreePath (3.0) or titles (\"Item 4/Screen G\").")
    var path: String
    @Argument(help: "Fields to set, as key=value.")
    var assignments: [String] = []
    @Option(name: .long, help: "The new value of a scalar (a leaf such as a config's port).")
    var value: String?
    @Option(name: .long, help: "Force the type of --value and key=value: text, integer, number, boolean, date or null.")
    var type: ForcedType?
    @Option(name: .long, help: "The new title (the row's title key; a generic member's key).")
    var title: String?
    @Option(name: .long, parsing: .singleValue, help: "Remove this attribute (repeatable).")
    var unset: [String] = []
    @Flag(name: .long, help: "Keep every key=value a string (no typing).")
    var string = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard title != nil || value != nil || !assignments.isEmpty || !unset.isEmpty || type == .null else {
            throw ValidationError("nothing to change: give --value, --title, key=value or --unset key")
        }
        if string, type != nil { throw ValidationError("--string and --type cannot be combined") }
        for a in assignments { _ = try Assignment.split(a) }
    }

    func run() async throws {
        let file = try await EditedFile(data, author: author.author)
        let target = try file.path(path)
        let form = try file.form(of: target)
        var changes: [Change] = []
        if value != nil || type == .null {
            guard form.isValue else {
                throw BadInput("\(data.file): \(target): '\(path)' has fields, not a single value: set them as key=value")
            }
            changes += try file.check { () throws(EditError) in
                if let type { return [.setValue(target, value: try type.scalar(value ?? "", key: FieldForm.valueKey))] }
                return try form.changes([FieldForm.valueKey: value ?? ""])
            }
        }
        if let title { changes.append(.updateTitle(target, title: title)) }
        var inputs: [String: FieldForm.Input] = [:]
        for a in assignments {
            let (key, text) = try Assignment.split(a)
            if string {
                inputs[key] = .typed(Scalar(.string, text))
            } else if let type {
                inputs[key] = .typed(try file.check { () throws(EditError) in try type.scalar(text, key: key) })
            } else {
                inputs[key] = .text(text)
            }
        }
        for key in unset { inputs[key] = .unset }
        if !inputs.isEmpty {
            guard !form.isValue else {
                throw BadInput("\(data.file): \(target): '\(path)' is a single value, not a row with fields: use --value")
            }
            changes += try file.check { () throws(EditError) in try form.changes(inputs) }
        }
        // Values it already has change nothing, and the file is left alone.
        let paths = changes.isEmpty ? [target] : try await file.apply(changes)
        try file.report(paths.last ?? target, json: output.json)
    }
}

/// A type `--type` forces on a value.
enum ForcedType: String, ExpressibleByArgument, CaseIterable {
    case text, integer, number, boolean, date, null

    /// The scalar `text` is as this type, or an error naming `key`.
    func scalar(_ text: String, key: String) throws(EditError) -> Scalar {
        switch self {
        case .null: return Scalar(.null, "")
        case .text: return Scalar(.string, text)
        case .integer, .number, .boolean, .date:
            let field = Field(key: key, type: FieldType(rawValue: rawValue)!, storedKind: self == .number ? .real : nil)
            guard let scalar = try field.scalar(from: text) else { throw EditError("'\(key)' needs a value for --type \(rawValue)", field: key) }
            return scalar
        }
    }
}
