/// Why data could not be opened, edited or saved: the file, URL or schema it concerns, and a
/// message a user can act on (which names that location already).
///
/// ```swift
/// do { _ = try DrillDown.open("missing.json") } catch { print(error) }   // "missing.json: cannot open …"
/// ```
public struct OpenError: Error, Sendable, CustomStringConvertible {
    /// The file, URL or schema file the problem is in.
    public var location: String
    /// The message in words, location included.
    public var message: String

    /// An error at `location` with the complete `message`.
    public init(_ location: String, _ message: String) {
        self.location = location
        self.message = message
    }

    public var description: String { message }
}
