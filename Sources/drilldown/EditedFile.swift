import ArgumentParser
import DrillDownCore
import DrillDownFormats
import Foundation

/// A data file opened for editing by `add`, `set`, `rm`, `mv` and `run`: loaded with the shared
/// ``DataOptions`` under the file's lock, changed through the core's ``EditingStore``: a document
/// is patched in place in the format it was read in; a database store commits each step row by row.
struct EditedFile {
    var loaded: LoadedData
    var store: any EditingStore
    /// The document file's lock, held from before it is read until it is written, so concurrent
    /// writers (other commands, an editable server, the terminal UI) take turns and lose nothing.
    let lock: FileLock?

    init(_ data: DataOptions) throws {
        let isDatabase = data.reading.format == nil && DatabaseData.isDatabase(data.file)
        lock = isDatabase ? nil : try? FileLock(data.file)
        loaded = try data.load()
        store = try loaded.editingStore()
        // Paths are resolved in the data the store edits (a database store reads its own snapshot).
        loaded.presenter = Presenter(source: store.snapshot, schema: loaded.presenter.schema)
    }

    var source: any Source { store.snapshot }

    /// The TreePath of a user-written PATH (TreePath or titles); exit status 1 when it names nothing.
    func path(_ text: String) throws -> TreePath { loaded.source.path(of: try loaded.resolve(text)) }

    /// Applies the changes as one step; an invalid change is bad input (exit status 1).
    @discardableResult
    mutating func apply(_ changes: [Change]) throws -> [TreePath] {
        do { return try store.apply(changes) } catch { throw BadInput("\(loaded.file): \(error.description)") }
    }

    /// Applies the changes `derive` makes from the data as the store writes it (see ``EditingStore/apply(deriving:)``).
    @discardableResult
    mutating func apply(deriving derive: (any Source) throws(EditError) -> [Change]) throws -> [TreePath] {
        do { return try store.apply(deriving: derive).paths } catch { throw BadInput("\(loaded.file): \(error.description)") }
    }

    /// Writes a document back in its own format while the lock is held: a document file is patched
    /// (only the changed bytes are rewritten; a change that changes nothing writes nothing). A
    /// database store has committed each step already.
    mutating func save() throws {
        guard let document = store as? EditableDocument else { return }
        guard var file = loaded.documentFile else { return try loaded.save(document.tree) }
        let outcome: DocumentFile.WriteOutcome
        do { outcome = try file.write(document.tree, holding: lock) } catch { throw BadInput(error.description) }
        if case .stale = outcome {
            throw BadInput("\(loaded.file): the file was changed by a program that does not take DrillDown's lock while this command ran; nothing was written, run the command again")
        }
        loaded.documentFile = file
    }

    /// Prints the resulting TreePath (empty for the root), or a JSON object with its title path too.
    func report(_ path: TreePath, json: Bool, title: String? = nil) throws {
        let shownTitle = title ?? source.node(at: path).map { source.levelTitle(of: $0) } ?? ""
        if json {
            struct Result: Encodable { var path: String, titlePath: String?, title: String, file: String, format: String }
            let titlePath = source.node(at: path).map { source.titlePath(of: $0) }
            try Out.json(Result(
                path: path.description, titlePath: title == nil ? titlePath : nil, title: shownTitle,
                file: loaded.file, format: loaded.formatName))
        } else {
            var out = Out()
            out.line(path.description)
            out.flush()
        }
    }

    /// `key=value` parsed into an attribute, typed (`60` an integer, `true` a boolean) unless `asString`.
    static func assignment(_ text: String, asString: Bool) throws -> Attribute {
        guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
            throw ValidationError("expected key=value, found '\(text)'")
        }
        let value = String(text[text.index(after: eq)...])
        return Attribute(key: String(text[..<eq]), value: asString ? Scalar(.string, value) : Scalar(inferring: value))
    }
}
