/// A tree that a writer cannot express in its format (e.g. a null in a property list).
struct WriteFailure: Error, Sendable {
    var message: String
    init(_ message: String) { self.message = message }
}
