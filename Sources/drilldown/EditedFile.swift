import ArgumentParser
import DrillDownCore
import DrillDownFormats
import Foundation

/// A data file opened for editing by `add`, `set`, `rm`, `mv` and `run`: loaded with the shared
/// ``DataOptions`` under the file's lock, changed through the core's ``EditableDocument``, written back atomically in
/// the format it was read in.
struct EditedFile {
    var loaded: LoadedData
    var document: EditableDocument
    /// The document file's lock, held from before it is read until it is written, so concurrent
    /// writers (other commands, an editable server, the terminal UI) take turns and lose nothing.
    let lock: FileLock?

    init(_ data: DataOptions) throws {
        let isDatabase = data.reading.format == nil && DatabaseData.isDatabase(data.file)
        lock = isDatabase ? nil : try? FileLock(data.file)
        loaded = try data.load()
        document = try loaded.editableDocument()
    }

    var source: DocumentSource { document.source }

    /// The TreePath of a user-written PATH (TreePath or titles); exit status 1 when it names nothing.
    func path(_ text: String) throws -> TreePath { source.path(of: try loaded.resolve(text)) }

    /// Applies the changes as one step; an invalid change is bad input (exit status 1).
    @discardableResult
    mutating func apply(_ changes: [Change]) throws -> [TreePath] {
        do { return try document.apply(changes) } catch { throw BadInput("\(loaded.file): \(error.description)") }
    }

    /// Writes the document back in its own format, atomically (a tree table in one transaction).
    /// A document file is patched (only the changed bytes are rewritten; a change that changes
    /// nothing writes nothing) while the lock is held.
    mutating func save() throws {
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
