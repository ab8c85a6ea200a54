import DrillDown

/// A data file opened for one edit by `add`, `set`, `rm`, `mv` and `run`: changed through the
/// ``DocumentModel`` that ``DrillDown/open(_:options:)`` gives (a document is patched under the
/// lock taken before it was read; a database store commits the step itself).
struct EditedFile {
    let data: OpenedData
    let model: DocumentModel
    /// Who the steps are recorded as in the history.
    let author: HistoryAuthor

    init(_ options: DataOptions, author: HistoryAuthor) async throws {
        data = try options.reading.load(options.file, holdingLock: true)
        model = try data.model()
        self.author = author
        if let log = try data.historyLog() { await model.keepHistory(in: log) }
    }

    /// The data as it is now (after a step: as the step left it).
    var source: any Source { model.versionedSource.source }

    /// The TreePath of a user-written PATH (TreePath or titles); exit status 1 when it names nothing.
    func path(_ text: String) throws -> TreePath {
        do { return source.path(of: try source.resolve(text)) } catch { throw BadInput("\(data.file): \(error)") }
    }

    /// Applies the changes as one step; an invalid change or a failed write is bad input (exit status 1).
    @discardableResult
    func apply(_ changes: [Change]) async throws -> [TreePath] {
        do { return try await HistoryAuthor.$current.withValue(author) { try await model.apply(changes) } } catch { throw BadInput("\(data.file): \(error)") }
    }

    /// Runs the schema's `action` on the node at `path`, derived from the data as the step writes it.
    func run(_ action: String, at path: TreePath) async throws {
        do { try await HistoryAuthor.$current.withValue(author) { try await model.run(action, at: path) } } catch { throw BadInput("\(data.file): \(error)") }
    }
}
