import ArgumentParser
import DrillDown

/// `drilldown show FILE PATH`: a node's detail view.
struct Show: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a node's detail: title, path, attributes and value.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The node: a TreePath (3.0.0.0.0) or titles (\"Item 4/Screen G\").")
    var path: String
    @OptionGroup var output: OutputOptions

    func run() throws {
        let loaded = try data.load()
        let id = try loaded.resolve(path)
        var nav = Navigator(presenter: loaded.presenter)
        nav.open(id, detail: true)
        try Self.print(loaded: loaded, navigator: nav, json: output.json)
    }

    /// A field's value in `--json`: as the detail shows it, except a boolean, which stays `true`
    /// or `false` for scripts.
    static func jsonValue(_ field: DetailField) -> String {
        if case .boolean = field.style { return field.value.text }
        return field.text
    }

    /// Prints the detail view of the navigator's top node.
    static func print(loaded: OpenedData, navigator nav: Navigator, json: Bool) throws {
        let id = nav.top.node
        let detail = loaded.presenter.detail(of: id)
        let source = loaded.source
        if json {
            struct Field: Encodable { var key: String, label: String, value: String }
            struct DetailJSON: Encodable {
                var title: String, backLabel: String?, path: String, titlePath: String, kind: String?, subtitle: String?
                var image: String?, children: Int, value: String?, valueKind: String?, fields: [Field], breadcrumbs: [String]
            }
            try Out.json(DetailJSON(
                title: detail.row.title, backLabel: nav.backLabel, path: nav.path.description,
                titlePath: source.titlePath(of: id), kind: detail.row.kind,
                subtitle: detail.row.subtitle.isEmpty ? nil : detail.row.subtitle, image: detail.row.image,
                children: detail.row.childCount, value: detail.value?.text, valueKind: detail.value?.kind.description,
                fields: detail.fields.map { Field(key: $0.key, label: $0.label, value: Self.jsonValue($0)) }, breadcrumbs: nav.breadcrumbs.map(\.title)))
            return
        }
        var out = Out()
        out.line(detail.row.title)
        out.line(nav.backLabel.map { "‹ \($0)" } ?? "(root)")
        out.line("path: \(nav.path.description.isEmpty ? "(root)" : nav.path.description)  (\(source.titlePath(of: id)))")
        if let kind = detail.row.kind { out.line("kind: \(kind)") }
        if !detail.row.subtitle.isEmpty { out.line("subtitle: \(detail.row.subtitle)") }
        if let image = detail.row.image { out.line("image: \(image)") }
        if let value = detail.value { out.line("value (\(value.kind)): \(value.text)") }
        let width = min(24, detail.fields.map(\.label.count).max() ?? 0)
        for field in detail.fields { out.line("  \(padded(field.label, width))  \(field.text)") }
        if detail.row.childCount > 0 { out.line("children: \(detail.row.childCount)") }
        out.flush()
    }
}
