import DrillDownFormats
import Foundation

extension OpenedData {
    /// A document read whole, with the version read kept for group commit.
    static func openDocument(_ file: String, _ reading: Reading) throws(OpenError) -> OpenedData {
        let read: DocumentFile
        do {
            read = try DocumentFile.read(file, format: reading.options.format, expansionLimit: reading.options.expansionLimit)
        } catch {
            throw OpenError(file, error.description)
        }
        var opened = OpenedData(file: file, tree: read.tree, format: read.format, database: nil, reading)
        opened.documentFile = read
        return opened
    }

    /// `file` indexed lazily (``LazyJSONSource``) when the index mode asks for it, or when it is a
    /// JSON file of at least ``IndexMode/lazyThreshold`` bytes; `nil` to read it whole. Its text
    /// values that hold JSON open as read-only subtrees (``LazyJSONSource/openingJSON(_:)``).
    static func openLazily(_ file: String, _ reading: Reading) throws(OpenError) -> OpenedData? {
        let index = reading.options.index
        // The file a symbolic link names is measured, not the link.
        var info = stat()
        guard stat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        guard index == .lazy || Int(info.st_size) >= IndexMode.lazyThreshold else { return nil }
        let chosen: DocumentFormat
        if let format = reading.options.format {
            chosen = format
        } else {
            guard let handle = FileHandle(forReadingAtPath: file) else { return nil }
            let head = [UInt8]((try? handle.read(upToCount: 4096)) ?? Data())
            try? handle.close()
            chosen = DocumentFormat.detect(head, fileExtension: URL(fileURLWithPath: file).pathExtension)
        }
        guard chosen == .json else {
            if index == .lazy { throw OpenError(file, "\(file): --index lazy reads JSON only; this file is \(chosen.rawValue)") }
            return nil
        }
        let source: LazyJSONSource
        do {
            source = try LazyJSONSource(path: file, mode: reading.mode, keys: reading.keys, name: URL(fileURLWithPath: file).lastPathComponent)
        } catch {
            throw OpenError(file, error.description)
        }
        return OpenedData(
            file: file, folder: Self.folder(of: file), tree: nil, format: .json, database: nil,
            presenter: Presenter(source: source.openingJSON(.formats), schema: reading.schema), loadSeconds: reading.seconds)
    }

    /// A document tree (from a file or a tree table) with the source the options ask for. A
    /// document file's text values that hold JSON open as subtrees (``EmbeddedJSONSource``); a
    /// tree table's stay text.
    init(file: String, tree: TreeStore, format: DocumentFormat?, database: Database?, _ reading: Reading) {
        let name = URL(fileURLWithPath: file).lastPathComponent
        let document = DocumentSource(
            tree: tree, mode: reading.mode, keys: reading.keys, name: name, embeddedJSON: database == nil ? .formats : nil)
        let source: any Source = database == nil ? EmbeddedJSONSource(document) : document
        self.init(
            file: file, folder: Self.folder(of: file), tree: tree, format: format, database: database,
            presenter: Presenter(source: source, schema: reading.schema), loadSeconds: reading.seconds)
    }

    /// The folder a file's images are served from.
    static func folder(of file: String) -> URL {
        URL(fileURLWithPath: file).deletingLastPathComponent().standardizedFileURL
    }
}
