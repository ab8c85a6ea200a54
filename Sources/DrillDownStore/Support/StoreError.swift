import GRDB

/// Why an SQLite file cannot be read or written as DrillDown data: names the file and says what
/// was found and what was expected.
///
/// ```swift
/// do { _ = try SQLiteTreeStore(path: "broken.sqlite").read() }
/// catch { print(error) }   // broken.sqlite: not an SQLite database, or a corrupt one (file is not a database)
/// ```
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database file.
    public var file: String
    /// What went wrong, for a person.
    public var message: String

    /// Creates an error.
    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    /// An error from SQLite or GRDB, worded for a person.
    init(file: String, _ error: any Error) {
        self.file = file
        if let store = error as? StoreError {
            message = store.message
        } else if let db = error as? DatabaseError {
            switch db.resultCode {
            case .SQLITE_NOTADB: message = "not an SQLite database, or a corrupt one (\(db.message ?? "file is not a database"))"
            case .SQLITE_CORRUPT: message = "the database is corrupt (\(db.message ?? "malformed"))"
            case .SQLITE_CANTOPEN: message = "cannot open the database (\(db.message ?? "unable to open"))"
            case .SQLITE_READONLY: message = "the database is read-only (\(db.message ?? "readonly"))"
            case .SQLITE_BUSY, .SQLITE_LOCKED: message = "the database is locked by another process (\(db.message ?? "busy"))"
            default: message = "SQLite error \(db.resultCode.rawValue): \(db.message ?? "\(db)")"
            }
        } else {
            message = "\(error)"
        }
    }

    public var description: String { "\(file): \(message)" }
}
