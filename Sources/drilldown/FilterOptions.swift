import ArgumentParser
import DrillDown

/// `--where EXPR` (repeatable: all must match) and `--facet FIELD` for `ls` and `find`.
struct FilterOptions: ParsableArguments {
    @Option(
        name: .customLong("where"),
        help: "Show only rows matching EXPR, e.g. 'length>6:00 and genre in (Rock, Jazz)' (= != < <= > >= ~ in exists, and/or). Repeat: all must match.")
    var expressions: [String] = []
    @Option(name: .long, help: "Print the most frequent values of FIELD over the rows, with counts, instead of the rows.")
    var facet: String?
    @Option(name: .customLong("facet-limit"), help: "Show at most this many facet values.")
    var facetLimit = 10

    /// The filter the `--where` options make together; `nil` when none was given.
    func filter() throws -> Filter? {
        var filters: [Filter] = []
        for expression in expressions {
            do {
                filters.append(try Filter(expression))
            } catch {
                throw BadInput("--where: \(error.description)")
            }
        }
        return Filter.all(filters)
    }

    /// Prints `facet` as text or JSON.
    static func print(_ facet: Facet, json: Bool) throws {
        if json {
            struct ValueJSON: Encodable { var value: String, label: String, count: Int }
            struct FacetJSON: Encodable { var field: String, rows: Int, missing: Int, distinct: Int, values: [ValueJSON] }
            try Out.json(FacetJSON(
                field: facet.field, rows: facet.rows, missing: facet.missing, distinct: facet.distinct,
                values: facet.values.map { ValueJSON(value: $0.value, label: $0.label, count: $0.count) }))
            return
        }
        var out = Out()
        out.line("\(facet.field): \(facet.distinct) \(facet.distinct == 1 ? "value" : "values") over \(facet.rows) rows")
        let width = facet.values.map { String($0.count).count }.max() ?? 0
        for value in facet.values {
            let count = String(value.count)
            out.line("  " + String(repeating: " ", count: width - count.count) + count + "  " + value.label)
        }
        if facet.missing > 0 { out.line("  (\(facet.missing) without \(facet.field))") }
        out.flush()
    }
}

extension FilterError {
    /// The error as the CLI reports it.
    var badInput: BadInput { BadInput("--where: \(description)") }
}
