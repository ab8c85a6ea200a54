import ArgumentParser
import DrillDown
import Foundation

/// `drilldown`: browse any hierarchical data set as drill-down table views.
@main
struct DrillDownCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drilldown",
        abstract: "Browse property lists, JSON and YAML as drill-down table views.",
        discussion: """
            PATH arguments accept a TreePath (3.0.0: the first child of the first child of the fourth row)
            or a '/'-separated list of titles ("Item 4/Screen G"). Exit status: 0 ok, 1 bad input, 2 usage.
            """,
        // Every command names itself (`commandName:`): a name derived from the type costs runtime
        // protocol-conformance scans of this large binary at every start (a fifth of a `stats` of a tiny file).
        subcommands: [Ls.self, TreeCommand.self, Show.self, Find.self, Add.self, SetCommand.self, Rm.self, Mv.self, Run.self, HistoryCommand.self, Revert.self, Convert.self, Stats.self, Serve.self, Browse.self, Bench.self, UserCommand.self, TokenCommand.self]
    )

    /// Runs a command, mapping bad input to exit status 1 and usage errors to 2.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var async = command as? AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
            // A database read lazily that failed a read meanwhile gave empty rows: say so, exit 1.
            if let source = ReadingOptions.opened.withLock({ $0 }), source.readFailures.count > 0 {
                throw BadInput(source.readFailures.last ?? "a read of the data failed")
            }
        } catch let error as BadInput {
            fail(error.message)
        } catch let error as OpenError {
            fail(error.message)
        } catch {
            let code = exitCode(for: error)
            if code == .success || code.rawValue == 0 {
                exit(withError: error)
            } else if code == .validationFailure || code.rawValue == 64 {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            } else {
                exit(withError: error)
            }
        }
    }

    /// Prints a bad-input message (a library's ``OpenError`` too) as one line and exits with status 1.
    static func fail(_ message: String) -> Never {
        // Messages quote titles from the data: on a terminal their control characters are shown, not run.
        let shown = isatty(2) != 0 ? VisibleText.escaping(message) : message
        FileHandle.standardError.write(Data("drilldown: \(shown)\n".utf8))
        Foundation.exit(1)
    }
}

/// A problem with the user's data or arguments' content: printed as one line, exit status 1.
struct BadInput: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }

    /// The message in words (what the terminal UI shows when a reload or save fails).
    var description: String { message }
}
