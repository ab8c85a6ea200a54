import ArgumentParser
import DrillDownCore
import DrillDownFormats
import Foundation

/// A data file opened for editing by `add`, `set`, `rm`, `mv` and `run`: loaded with the shared
/// ``DataOptions``, changed through the core's ``EditingStore``: a document is written back
/// atomically in the format it was read in; a tree table commits each step row by row.
struct EditedFile {
    var loaded: LoadedData
    var store: any EditingStore

    init(_ data: DataOptions) throws {
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

    /// Writes a document back in its own format, atomically (a tree table's store committed each step already).
    func save() throws {
        if let document = store as? EditableDocument { try loaded.save(document.tree) }
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
