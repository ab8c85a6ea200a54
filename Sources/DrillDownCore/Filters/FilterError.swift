/// Why a filter expression cannot be read or applied: what was expected, and where in the
/// expression (a 1-based column), e.g. `column 8: 'length' takes a duration (m:ss…), not 'long'`.
public struct FilterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for people.
    public var message: String
    /// The 1-based column in ``expression`` where the problem starts.
    public var column: Int
    /// The expression as given.
    public var expression: String

    /// Creates an error.
    public init(_ message: String, column: Int, expression: String) {
        self.message = message
        self.column = column
        self.expression = expression
    }

    public var description: String { "column \(column) of '\(expression)': \(message)" }
}
