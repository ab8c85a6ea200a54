import ArgumentParser
import DrillDown
import DrillDownFormats
import DrillDownTerminal
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
            With --editable: a add, r rename, d delete (y confirms), J/K move down/up, u undo, U or Ctrl-R redo,
            Space flips a switch, +/- move a slider or stepper, Enter runs a row's action or first button, 1-9 a button.
            Every edit is saved at once. Changes made to the file elsewhere appear while browsing; while the file
            cannot be read (half written elsewhere) edits are refused, and a file changed elsewhere is never
            overwritten with the older copy. Pasted text goes into an open prompt as text; it never runs as keys.
            """
    )

    @OptionGroup var data: DataOptions

    @Flag(name: .long, help: "Allow edits: add, rename, delete, move, undo, switches, sliders and buttons; each is saved at once.")
    var editable = false

    func run() throws {
        guard isatty(1) != 0 else {
            throw BadInput("drilldown browse needs a terminal; for a non-interactive view use `drilldown tree FILE`")
        }
        let loaded = try data.load()
        let shared = SharedDocumentFile()
        var app = TerminalApp(presenter: loaded.presenter)
        let options = UncheckedSendable(data)
        if editable {
            let store = try loaded.editingStore()
            app.actions = try loaded.actionSet()
            if store is EditableDocument {
                let saved = UncheckedSendable(loaded)
                if let file = loaded.documentFile {
                    // Patched in place under the file's lock, never over another writer's change.
                    app.save = { tree in try shared.write(tree) }
                    shared.replace(file)
                } else {
                    app.save = { tree in try saved.value.save(tree) }
                }
            } else {
                // A database store commits each step and notices other writers itself.
                app.store = store
                app.reopen = { try options.value.load().editingStore() }
            }
        }
        let file = data.file
        let paths = loaded.database == nil ? [file] : [file, file + "-wal"]
        if app.store == nil {
            app.watched = WatchedFile(paths: paths) {
                let reloaded = try options.value.load()
                // The version the browser is about to show is the one its next save patches.
                if let file = reloaded.documentFile { shared.replace(file) }
                return reloaded.presenter
            }
        }
        do {
            try app.run()
        } catch {
            throw BadInput("drilldown browse: \(error.description)")
        }
    }
}

/// The document file behind the terminal UI: its reload replaces the version, its saves patch it.
final class SharedDocumentFile: @unchecked Sendable {
    private let lock = NSLock()
    private var file: DocumentFile?

    /// Takes the version a reload read, unless the file changed since (a reload that overlapped
    /// one of the browser's own writes read an older version, which the browser does not show).
    func replace(_ file: DocumentFile) {
        lock.lock()
        if file.stamp == FileStamp.of(file.path) { self.file = file }
        lock.unlock()
    }

    /// Writes `tree` over the version last read; throws ``SaveConflict`` (the terminal then reads
    /// the newer version and applies its unsaved steps to it) when the file changed elsewhere
    /// since, or when `tree` was made from an older version than the one last read.
    func write(_ tree: TreeStore) throws {
        lock.lock()
        defer { lock.unlock() }
        // A tree made from a version before the latest reload (a save that raced it) is older than the file.
        guard var current = file, current.tree.sharesBase(with: tree) else { throw SaveConflict() }
        let stale: Bool
        do {
            if case .stale = try current.write(tree) { stale = true } else { stale = false }
        } catch {
            throw BadInput(error.description)
        }
        if stale { throw SaveConflict() }
        file = current
    }
}

/// A value handed to the terminal UI's background reload and save, which use it one at a time.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
