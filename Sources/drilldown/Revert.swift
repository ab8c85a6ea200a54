import ArgumentParser
import DrillDown

/// `drilldown revert FILE ID`: apply a recorded change's inverse as a new change.
struct Revert: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert",
        abstract: "Take back the change numbered ID (see `drilldown history`) as a new change, recorded in the history; refused, with the reason, when a later change depends on it.",
        discussion: """
              drilldown revert library.yaml 12
            """)

    @OptionGroup var data: DataOptions
    @OptionGroup var author: AuthorOptions
    @Argument(help: "The number of the change, as `drilldown history` lists it.")
    var id: Int64
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let file = try await EditedFile(data, author: author.author)
        guard await file.model.historyLog != nil else { throw BadInput("\(data.file): this kind of data set keeps no history") }
        let paths: [TreePath]
        do {
            paths = try await HistoryAuthor.$current.withValue(author.author) { try await file.model.revert(id) }
        } catch {
            throw BadInput("\(data.file): \(error)")
        }
        let record = try? await file.model.historyPage(offset: 0, limit: 1).records.first
        if output.json {
            try Out.json(RevertJSON(reverted: id, id: record?.id, paths: paths.map(\.description)))
        } else {
            var out = Out()
            out.line("reverted #\(id)" + (record.map { " as #\($0.id)" } ?? ""))
            out.flush()
        }
    }

    struct RevertJSON: Encodable {
        var reverted: Int64
        var id: Int64?
        var paths: [String]
    }
}
