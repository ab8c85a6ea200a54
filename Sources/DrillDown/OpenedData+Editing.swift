import DrillDownFormats
import DrillDownPostgres
import DrillDownStore
import Foundation

extension OpenedData {
    /// The data opened for editing in memory (a document read whole).
    /// - Throws: ``OpenError`` for a lazily indexed file or a database read through `levels:`.
    public func editableDocument() throws(OpenError) -> EditableDocument {
        if let lazy = storeSource as? LazyJSONSource {
            let size = lazy.statistics.fileBytes
            throw OpenError(
                file,
                "\(file): indexed lazily (\(size / 1_048_576) MiB, read a level at a time), so it is read-only; to edit it, read it whole with --index full (memory about twice the file)")
        }
        guard let source = source.documentSource else {
            throw OpenError(file, "\(file): a database read through the schema's levels is edited through its tables, not as a document")
        }
        return EditableDocument(source: source, schema: presenter.schema)
    }

    /// The store every editor goes through: a database's tables or tree table (each step committed
    /// row by row by the store), else the document in memory (written by its ``model(listen:readOnly:)``).
    /// - Parameters:
    ///   - listen: (PostgreSQL) hear other instances' commits at once, through `EditingStore/news`.
    ///   - readOnly: (PostgreSQL) a store that is only read, which never upgrades the table.
    public func editingStore(listen: Bool = false, readOnly: Bool = false) throws(OpenError) -> any EditingStore {
        switch database {
        case .postgres(let table):
            do {
                var store = try PostgresTreeStore(
                    table.location, mode: (storeSource as? TreeTableSource)?.mode, name: table.location.table, schema: presenter.schema, listen: listen,
                    upgrading: !readOnly)
                store.openJSON(.formats)
                return store
            } catch {
                throw OpenError(file, error.description)
            }
        case .postgresLevels(let levels):
            do {
                var store = try PostgresLevels(levels.location, mapping: levels.mapping, editable: !readOnly, listen: listen).store()
                store.openJSON(.formats)
                return store
            } catch {
                throw OpenError(file, "\(error)")
            }
        case .relational(let source):
            do {
                var store = try RelationalStore(path: file, mapping: source.mapping, rootTitle: source.rootTitle)
                store.openJSON(.formats)
                return store
            } catch {
                throw OpenError(file, "\(error)")
            }
        case .treeTable(let table):
            if let source = storeSource as? TreeTableSource {
                do {
                    var store = try TreeTableStore(path: table.path, mode: source.mode, name: source.name, schema: presenter.schema)
                    store.openJSON(.formats)
                    return store
                } catch {
                    throw OpenError(file, error.description)
                }
            }
        case nil:
            break
        }
        return try editableDocument()
    }

    /// The schema's actions (and control bindings), ready to run.
    public func actionSet() throws(OpenError) -> ActionSet {
        do { return try ActionSet(schema: presenter.schema) } catch { throw OpenError(file, "\(file): \(error.description)") }
    }

    /// The model every view edits through, over ``editingStore(listen:readOnly:)``: a document
    /// file commits in groups (patched under its lock, never over a newer version: see
    /// `DocumentFile`); a database store commits each step itself.
    ///
    /// ```swift
    /// let model = try data.model()
    /// let events = await model.changes()
    /// try await model.apply(.setAttribute([0], key: "plays", value: Scalar(inferring: "3")))
    /// ```
    public func model(listen: Bool = false, readOnly: Bool = false) throws(OpenError) -> DocumentModel {
        let store = try editingStore(listen: listen, readOnly: readOnly)
        let actions = try actionSet()
        guard let document = store as? EditableDocument else { return DocumentModel(store: store, actions: actions) }
        if let documentFile {
            let storage: any DocumentStorage = fileLock.map { LockedDocumentFile(file: documentFile, lock: $0) } ?? documentFile
            return DocumentModel(document: document, actions: actions, storage: storage)
        }
        return DocumentModel(document: document, actions: actions, save: { [self] tree in try save(tree) })
    }

    /// Starts following other writers' changes into `model` (made by ``model(listen:readOnly:)``):
    /// a PostgreSQL store refreshes as soon as its `news` has an element (and every 25 ms while it
    /// missed any); a document file is checked every 400 ms, an SQLite database every 100 ms.
    /// Cancel the task to stop; `nil` when nothing else can change the data.
    public func follow(_ model: DocumentModel) async -> Task<Void, Never>? {
        if let news = await model.store.news { return await model.watch(every: .milliseconds(25), wakingOn: news) }
        if database != nil { return await model.watch(every: .milliseconds(100)) }
        if documentFile != nil { return await model.watch(every: .milliseconds(400)) }
        return nil
    }

    /// Writes an edited tree back where it came from: the document atomically in its own format,
    /// or the tree table in one transaction. A database store commits each step itself.
    public func save(_ tree: TreeStore) throws(OpenError) {
        switch database {
        case .treeTable(let store):
            do { try SQLiteTreeStore(path: store.path, create: false).write(tree) } catch { throw OpenError(file, error.description) }
        case .relational, .postgresLevels:
            throw OpenError(file, "\(file): a database read through the schema's levels is written row by row by its store")
        case .postgres:
            throw OpenError(file, "\(file): a PostgreSQL tree table is written row by row by its store")
        case nil:
            guard let format else { throw OpenError(file, "\(file): unknown format") }
            do { try DocumentWriter.write(tree, to: file, format: format) } catch { throw OpenError(file, error.description) }
        }
    }
}
