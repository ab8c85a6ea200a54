import ArgumentParser
import DrillDown

/// `drilldown find FILE TEXT`: search titles at any depth; `--where EXPR`: rows matching a filter
/// at any depth.
struct Find: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract: "Find nodes whose title contains TEXT (case-insensitive), or that match --where, at any depth, with their paths.")

    @OptionGroup var data: DataOptions
    @Argument(help: "The text to look for (optional with --where).") var text: String?
    @Flag(name: .long, help: "Search values and attributes too, not only titles.") var values = false
    @Option(name: .long, help: "Show at most this many matches.") var limit = 100
    @OptionGroup var filtering: FilterOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if text == nil, filtering.expressions.isEmpty { throw ValidationError("give TEXT or --where EXPR") }
        if text?.isEmpty == true { throw ValidationError("TEXT must not be empty") }
        if limit < 0 { throw ValidationError("--limit must be 0 or more") }
    }

    func run() throws {
        let loaded = try data.load()
        let source = loaded.source
        let result: SearchResult
        if var filter = try filtering.filter() {
            if let text { filter = .and([filter, .condition(.init(field: "title", op: .contains, values: [text]))]) }
            do {
                let found = try loaded.presenter.find(where: filter, limit: filtering.facet == nil ? limit : .max)
                if let field = filtering.facet {
                    try FilterOptions.print(try loaded.presenter.facet(over: found.hits, field: field, limit: filtering.facetLimit), json: output.json)
                    return
                }
                result = SearchResult(hits: found.hits, total: found.total)
            } catch let error as FilterError {
                throw error.badInput
            }
        } else {
            guard filtering.facet == nil else { throw BadInput("--facet needs --where in find") }
            result = source.find(SearchQuery(text ?? "", includeValues: values, limit: limit))
        }
        let rows = result.hits.map { loaded.presenter.row(for: $0) }
        if output.json {
            struct Hit: Encodable { var path: String, titlePath: String, title: String, subtitle: String?, drills: Bool }
            struct Result: Encodable { var query: String, total: Int, hits: [Hit] }
            try Out.json(Result(query: text ?? filtering.expressions.joined(separator: " and "), total: result.total, hits: zip(result.hits, rows).map { id, row in
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
