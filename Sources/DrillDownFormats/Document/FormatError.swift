/// A document that could not be read or written: where, and what was expected and found.
///
/// Errors print like compiler diagnostics, so editors and terminals can jump to them:
///
/// ```swift
/// do { _ = try DocumentReader.read(contentsOf: "data.json") }
/// catch { print(error) }   // data.json:3:14: error: expected ',' or '}' after object member, found ']'
/// ```
///
/// Formats without lines (binary property lists) leave ``line`` and ``column`` `nil` and name
/// the byte offset in the ``message`` instead.
public struct FormatError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file (or name) the document came from.
    public var file: String
    /// The 1-based line of the problem, when the format has lines.
    public var line: Int?
    /// The 1-based column (in Unicode scalars) of the problem, when the format has lines.
    public var column: Int?
    /// What was expected and what was found.
    public var message: String

    /// Creates an error.
    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// `file:line:column: error: message`, leaving out the parts that are unknown.
    public var description: String {
        var location = file
        if let line {
            location += ":\(line)"
            if let column { location += ":\(column)" }
        }
        return "\(location): error: \(message)"
    }
}
