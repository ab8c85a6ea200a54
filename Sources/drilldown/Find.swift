import ArgumentParser
import DrillDown

/// `drilldown find FILE TEXT`: search titles at any depth.
struct Find: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Find nodes whose title contains TEXT (case-insensitive), at any depth, with their paths.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The text to look for.") var text: String
    @Flag(name: .long, help: "Search values and attributes too, not only titles.") var values = false
    @Option(name: .long, help: "Show at most this many matches.") var limit = 100
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if text.isEmpty { throw ValidationError("TEXT must not be empty") }
        if limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let loaded = try data.load()
        let source = loaded.source
        let result = source.find(SearchQuery(text, includeValues: values, limit: limit))
        let rows = result.hits.map { loaded.presenter.row(for: $0) }
        if output.json {
            struct Hit: Encodable { var path: String, titlePath: String, title: String, subtitle: String?, drills: Bool }
            struct Result: Encodable { var query: String, total: Int, hits: [Hit] }
            try Out.json(Result(query: text, total: result.total, hits: zip(result.hits, rows).map { id, row in
                Hit(path: row.path.description, titlePath: source.titlePath(of: id), title: row.title,
                    subtitle: row.subtitle.isEmpty ? nil : row.subtitle, drills: row.drills)
            }))
            return
        }
        var out = Out()
        let width = rows.map { $0.path.description.count }.max() ?? 0
        for (id, row) in zip(result.hits, rows) {
            out.line(padded(row.path.description, width) + "  " + source.titlePath(of: id))
        }
        out.line(result.total == result.hits.count
            ? "\(result.total) \(result.total == 1 ? "match" : "matches")"
            : "\(result.total) matches, first \(result.hits.count) shown")
        out.flush()
    }
}
