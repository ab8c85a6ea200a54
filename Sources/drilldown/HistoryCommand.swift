import ArgumentParser
import DrillDown
import Foundation

/// `drilldown history FILE [PATH] [--json] [--limit N] [--offset N]`: who changed what, newest first.
struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the data set's changes, newest first: number, when, who, what (old → new); with PATH, only those touching that node or below it.",
        discussion: """
            A document keeps its history in FILE.drilldown-history beside it; an SQLite or PostgreSQL \
            tree table in a table beside the data. Revert an entry with `drilldown revert FILE ID`.

              drilldown history library.yaml
              drilldown history library.yaml "Miles Davis" --limit 5 --json
            """)

    @OptionGroup var data: DataOptions
    @Argument(help: "Only changes touching this node or below it: a TreePath (3.0) or titles.")
    var path: String?
    @Option(name: .long, help: "The most entries to list.")
    var limit = 20
    @Option(name: .long, help: "Skip this many of the newest entries first.")
    var offset = 0
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be at least 1") }
        guard offset >= 0 else { throw ValidationError("--offset cannot be negative") }
    }

    func run() async throws {
        let opened = try data.reading.load(data.file)
        guard let log = try opened.historyLog() else { throw BadInput("\(data.file): this kind of data set keeps no history") }
        var target = TreePath.root
        if let path {
            do { target = opened.source.path(of: try opened.source.resolve(path)) } catch { throw BadInput("\(data.file): \(error.description)") }
        }
        let page: HistoryPage
        do { page = try log.page(touching: target, offset: offset, limit: limit) } catch { throw BadInput("\(data.file): \(error)") }
        if output.json {
            try Out.json(HistoryListing(page))
            return
        }
        var out = Out()
        if page.records.isEmpty { out.line("no changes recorded" + (target.isRoot ? "" : " at \(target)")) }
        for record in page.records {
            out.line("#\(record.id)  \(HistoryText.time(record.time))  \(record.who)  \(HistoryText.kindPrefix(record))\(record.summary)")
            for d in record.differences {
                out.line("    \(d.path.isRoot ? "(root)" : d.path.description) \(d.field): \(d.old.map { "'\($0)'" } ?? "—") → \(d.new.map { "'\($0)'" } ?? "—")")
            }
        }
        if page.total > offset + page.records.count {
            out.line("… \(page.total - offset - page.records.count) older (--offset \(offset + page.records.count))")
        }
        out.flush()
    }
}

/// How the text listing writes an entry's time and kind.
enum HistoryText {
    /// ISO 8601 in UTC, to the second.
    static func time(_ date: Date) -> String { date.formatted(.iso8601) }

    /// "Revert of #3: ", "Undo of #5: " or nothing.
    static func kindPrefix(_ record: HistoryRecord) -> String {
        guard let target = record.target, record.kind != .change else { return "" }
        return "\(record.kind.rawValue.capitalized) of #\(target): "
    }
}
