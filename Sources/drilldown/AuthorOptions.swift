import ArgumentParser
import DrillDown
import Foundation

/// `--user NAME`: who a CLI edit is recorded as in the data set's history (default: the OS user).
struct AuthorOptions: ParsableArguments {
    @Option(name: .long, help: "Who the change is recorded as in the history (default: the operating system's user name).")
    var user: String?

    /// The author of this command's steps.
    var author: HistoryAuthor { HistoryAuthor(user: user ?? Self.systemUser) }

    /// The operating system's name for the user running the command.
    static var systemUser: String {
        if let pw = getpwuid(getuid()), let name = pw.pointee.pw_name { return String(cString: name) }
        return ProcessInfo.processInfo.environment["USER"] ?? "uid \(getuid())"
    }
}
