import ArgumentParser
import DrillDownCore
import DrillDownTerminal
import Foundation

/// `drilldown browse FILE`: the full-screen terminal UI.
struct Browse: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Browse the data in a full-screen terminal UI (drill-down, outline and columns).",
        discussion: """
            Keys: ↑/↓ or j/k move, Enter/→/l opens, Backspace/←/h goes back, Home/End/PgUp/PgDn, g/G,
            o outline (Space/→/← expand and collapse, E/C all), c columns, / search (n/N next/previous match),
            : go to a path, y copy the current path, q quits. NO_COLOR turns colour off.
            """
    )

    @OptionGroup var data: DataOptions

    func run() throws {
        guard isatty(1) != 0 else {
            throw BadInput("drilldown browse needs a terminal; for a non-interactive view use `drilldown tree FILE`")
        }
        let loaded = try data.load()
        do {
            try TerminalApp(presenter: loaded.presenter).run()
        } catch {
            throw BadInput("drilldown browse: \(error.description)")
        }
    }
}
