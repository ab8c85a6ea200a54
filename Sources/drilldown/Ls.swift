import ArgumentParser
import DrillDown

/// `drilldown ls FILE [PATH]`: one level, as its list screen shows it.
struct Ls: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract: "List one level: its title, back label and rows (› marks rows that drill).")

    @OptionGroup var data: DataOptions
    @Argument(help: "The level: a TreePath (3.0) or titles (\"Item 4/Screen G\"); the root when omitted.")
    var path: String?
    @Option(name: .long, help: "Skip this many rows.") var offset = 0
    @Option(name: .long, help: "Show at most this many rows.") var limit = Int.max
    @Option(
        name: .long,
        help: "Order the rows: title, a field (year), a template ({year}); a leading - sorts descending; 'none' keeps the data's order. Default: the schema's sort:.")
    var sort: String?
    @OptionGroup var filtering: FilterOptions
    @OptionGroup var output: OutputOptions

    func run() throws {
        let loaded = try data.load()
        let id = try loaded.resolve(path)
        var nav = Navigator(presenter: loaded.presenter)
        nav.open(id)
        if nav.top.isDetail {
            try Show.print(loaded: loaded, navigator: nav, json: output.json)
            return
        }
        var presenter = loaded.presenter
        if let sort {
            do {
                presenter = presenter.sorting(id, by: sort.lowercased() == "none" ? nil : try SortRule(sort))
            } catch {
                throw ValidationError("--sort: \(error.message)")
            }
        }
        do {
            presenter = try presenter.filtering(id, by: try filtering.filter())
            if let field = filtering.facet {
                try FilterOptions.print(try presenter.facet(of: id, field: field, limit: filtering.facetLimit), json: output.json)
                return
            }
        } catch let error as FilterError {
            throw error.badInput
        }
        let total = presenter.rowCount(of: id)
        let rows = presenter.rows(of: id, offset: max(0, offset), limit: max(0, limit))
        let sections = presenter.sections(of: id)
        if output.json {
            /// A section: its header and the rows (indices in the level) it holds.
            struct SectionJSON: Encodable {
                var title: String, start: Int, count: Int
                init(_ s: Section) { (title, start, count) = (s.title, s.start, s.count) }
            }
            struct Level: Encodable {
                var title: String, backLabel: String?, path: String, titlePath: String, total: Int, offset: Int, rows: [RowJSON]
                /// The level's sections (schema `section:`), every one, whatever the offset and limit.
                var sections: [SectionJSON]?
                /// The section index (schema `index: true`): each key once, with its first row.
                var index: [SectionJSON]?
            }
            try Out.json(Level(
                title: nav.title, backLabel: nav.backLabel, path: nav.path.description,
                titlePath: loaded.source.titlePath(of: id), total: total, offset: max(0, offset), rows: rows.map(RowJSON.init),
                sections: sections?.sections.map(SectionJSON.init), index: sections?.index?.map(SectionJSON.init)))
            return
        }
        var out = Out()
        out.line(nav.title)
        out.line(nav.backLabel.map { "‹ \($0)" } ?? "(root)")
        if rows.isEmpty { out.line("  No items") }
        let pathWidth = rows.map { $0.path.description.count }.max() ?? 0
        let titleWidth = min(48, rows.map { $0.title.count }.max() ?? 0)
        var nextSection = 0
        for (k, row) in rows.enumerated() {
            if let sections {
                let at = max(0, offset) + k
                while nextSection < sections.sections.count, sections.sections[nextSection].start < at { nextSection += 1 }
                let starts = nextSection < sections.sections.count && sections.sections[nextSection].start == at
                if starts || k == 0, let s = sections.section(containing: at) {
                    out.line("── \(sections.sections[s].title) ──")
                }
            }
            var line = "  " + padded(row.path.description, pathWidth) + "  " + padded(row.title, titleWidth)
            if !row.subtitle.isEmpty { line += "  " + row.subtitle }
            if row.drills { line += "  ›" } else if case .action(let name) = row.select { line += "  ▶ \(name)" }
            out.line(line)
        }
        if rows.count < total { out.line("  … \(total) rows in all") }
        out.flush()
    }
}
