import Foundation

/// Recognizes SQLite database files, by content or by name.
///
/// ```swift
/// SQLiteFile.isDatabase(atPath: "music.db")        // true when it starts with "SQLite format 3\0"
/// SQLiteFile.hasDatabaseExtension("data.sqlite3")  // true
/// ```
public enum SQLiteFile {
    /// The 16 bytes every SQLite 3 database file starts with.
    public static let header: [UInt8] = Array("SQLite format 3\0".utf8)

    /// The file extensions taken to name an SQLite database: `sqlite`, `sqlite3`, `db`.
    public static let fileExtensions: Set<String> = ["sqlite", "sqlite3", "db"]

    /// Whether `path`'s extension names an SQLite database (case-insensitive).
    /// - Complexity: O(path length)
    public static func hasDatabaseExtension(_ path: String) -> Bool {
        fileExtensions.contains(URL(fileURLWithPath: path).pathExtension.lowercased())
    }

    /// Whether the file at `path` is a regular file that starts with the SQLite header. Reads 16
    /// bytes; never opens a FIFO or device (which could block for ever).
    public static func isDatabase(atPath path: String) -> Bool {
        guard isRegularOrMissing(path), FileManager.default.fileExists(atPath: path) else { return false }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let bytes = try? handle.read(upToCount: header.count) else { return false }
        return Array(bytes) == header
    }

    /// Whether `path` (followed through symbolic links) is a regular file or does not exist:
    /// a FIFO, socket or device is neither a database nor a place to write one.
    public static func isRegularOrMissing(_ path: String) -> Bool {
        // One stat call: FileManager's attributes would also read /etc/passwd and /etc/group for the owner's names.
        var info = stat()
        guard stat(path, &info) == 0 else { return true }
        return info.st_mode & S_IFMT == S_IFREG
    }
}
