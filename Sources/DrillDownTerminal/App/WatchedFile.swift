import DrillDownCore

/// The file behind the browser, for showing changes made elsewhere (another `drilldown`, the web
/// app, an editor) without a restart.
///
/// ```swift
/// WatchedFile(paths: [file, file + "-wal"]) { try load(file).presenter }
/// ```
public struct WatchedFile: Sendable {
    /// The files whose modification time, size or inode changing means the data changed
    /// (for SQLite: the database and its `-wal`).
    public var paths: [String]
    /// Reads the data again; runs on a background thread.
    public var reload: @Sendable () throws -> Presenter

    /// Watches `paths`, reading the data again with `reload` when one changes.
    public init(paths: [String], reload: @escaping @Sendable () throws -> Presenter) {
        self.paths = paths
        self.reload = reload
    }
}
