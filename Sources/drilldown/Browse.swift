import ArgumentParser
import DrillDown
import DrillDownFormats
import DrillDownCore
import DrillDownTerminal
import DrillDownWeb
import Foundation

/// `drilldown browse FILE`: the full-screen terminal UI.
struct Browse: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse the data in a full-screen terminal UI (drill-down, outline and columns).",
        discussion: """
            Keys: ↑/↓ or j/k move, Enter/→/l opens, Backspace/←/h goes back, Home/End/PgUp/PgDn, g/G,
            o outline (Space/→/← expand and collapse, E/C all), c columns, / search (n/N next/previous match),
            : go to a path, y copy the current path, q quits. NO_COLOR turns colour off.
            With --editable: e edits a value, or a row's fields in a form (Tab moves between fields, Enter saves,
            Esc cancels; values are read by the field's type: 9090 stays an integer, a bad one is refused naming its field),
            a add, r rename, d delete (y confirms), J/K move down/up, u undo, U or Ctrl-R redo (your own changes only:
            each edit is recorded in the data set's history as --user, else the operating system's user),
            Space flips a switch, +/- move a slider or stepper, Enter runs a row's action or first button, 1-9 a button.
            Every edit is saved at once. Changes made to the file elsewhere appear while browsing; while the file
            cannot be read (half written elsewhere) edits are refused, and a file changed elsewhere is never
            overwritten with the older copy. Pasted text goes into an open prompt as text; it never runs as keys.
            """
    )

    @OptionGroup var data: DataOptions

    @Flag(name: .long, help: "Allow edits: values and fields, add, rename, delete, move, undo, switches, sliders and buttons; each is saved at once.")
    var editable = false

    @Option(name: .long, help: "Browse as this user of --users: a viewer browses read-only, and edits outside the user's subtrees are refused.")
    var user: String?

    @Option(name: .long, help: ArgumentHelp("The accounts file (see 'drilldown user add') whose roles and grants --user gets.", valueName: "users.yaml"))
    var users: String?

    func validate() throws {
        if (user == nil) != (users == nil) { throw ValidationError("--user and --users go together: the user's name and the accounts file it is in.") }
    }

    func run() throws {
        guard isatty(1) != 0 else {
            throw BadInput("drilldown browse needs a terminal; for a non-interactive view use `drilldown tree FILE`")
        }
        let loaded = try data.load()
        var app = TerminalApp(presenter: loaded.presenter)
        var editable = self.editable
        if let user, let users {
            let file: UsersFile
            do { file = try UsersFile.load(URL(fileURLWithPath: users)) } catch let error as AccountsError { throw BadInput(error.message) }
            guard file.user(user) != nil else { throw BadInput("\(users): no user named '\(user)'") }
            let policy = file.policy
            // Rows hidden from the user are left out of every mode (``Browser/access``).
            let view = policy.view(for: user, in: loaded.presenter.source)
            editable = editable && view.mayChangeSomewhere
            app.access = { policy.view(for: user, in: $0) }
        }
        if editable {
            // Every edit goes through the one model (a document is patched under its lock, never
            // over a newer version; a database store commits each step), which follows other writers.
            let model = try loaded.model()
            app.model = model
            // Every edit is recorded in the history as the user (as the CLI's edits are), and
            // Undo takes back only theirs.
            app.history = try loaded.historyLog()
            app.author = HistoryAuthor(user: user ?? AuthorOptions.systemUser)
            Task.detached { _ = await loaded.follow(model) }
        } else {
            let options = UncheckedSendable(data)
            let paths = loaded.database == nil ? [data.file] : [data.file, data.file + "-wal"]
            app.watched = WatchedFile(paths: paths) { try options.value.load().presenter }
        }
        do {
            try app.run()
        } catch {
            throw BadInput("drilldown browse: \(error.description)")
        }
    }
}

/// The options handed to the terminal UI's background reload, which uses them one at a time.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
